import ChatCore

extension TransportCore {
    /// Sets the beacon clock going and takes the static peers (`--peer`),
    /// at the service's start: the first beacon turn is due at once.
    mutating func start(at now: Duration, statics addresses: [HostPort]) {
        beacons.nextAt = now
        statics = addresses.map {
            StaticPeer(address: $0, backoff: Backoff(base: discovery.reconnectDelay, cap: discovery.maxReconnectDelay))
        }
    }

    /// A fraction in 0..<1 from the core's generator.
    mutating func draw() -> Double { Double.random(in: 0..<1, using: &random) }

    /// The ±20% jitter of waits and backoffs.
    mutating func jitter() -> Double { 0.8 + 0.4 * draw() }

    /// Whether the beacon turn is due (the shell looks at its interfaces first).
    func beaconTurnDue(at now: Duration) -> Bool { discovery.beacons && now >= beacons.nextAt }

    /// The beacon due at `now`: the start burst and a deferred answer always
    /// go out; a periodic one as `BeaconSchedule` decides. `bounded`: the
    /// overlay runs above its threshold; then nodes heard once count toward
    /// the LAN's size too (as for answers). A node that joined a settled
    /// LAN hears each node once in minutes (their beacons are that rare),
    /// so it took a LAN of 1,000 for 14-50 nodes and beaconed every 2-5 s:
    /// 16 such nodes sent 106 of the 191 beacons of a 20 s window (issue
    /// 29). Heard twice still guards the threshold (the overlay's own count).
    mutating func beaconTurn(at now: Duration, bounded: Bool) -> [TransportAction] {
        guard beaconTurnDue(at: now) else { return [] }
        beacons.knownAtTurn = beacons.schedule.lanSize(counted: bounded ? max(knownNodeCount, announcements.count + 1) : knownNodeCount,
                                                       previous: beacons.knownAtTurn)
        let interval = beacons.schedule.interval(knownNodes: beacons.knownAtTurn)
        guard beacons.burstLeft == 0, !beacons.answerDeferred else {
            if beacons.answerDeferred {
                // This beacon is the answer that had to wait.
                beacons.lastAnswerAt = now
                counts.answersBroadcast += 1
                beacons.answerDeferred = false
            }
            if beacons.burstLeft > 1 {
                beacons.burstLeft -= 1
                beacons.nextAt = now + min(BeaconState.burstGap, discovery.beaconInterval / 2)
            } else {
                beacons.burstLeft = 0
                beacons.nextAt = now + interval * jitter()
            }
            return [.sendBeacon]
        }
        let established = self.established
        let turn = beacons.schedule.turn(at: now, knownNodes: beacons.knownAtTurn, canLinkMore: canOpenLink,
                                         boundedLinks: bounded, links: established.count, random: draw(),
                                         silenceRandom: draw()) { established[$0] != nil }
        beacons.nextAt = turn.next
        guard turn.send else {
            counts.beaconsSkipped += 1
            return []
        }
        return [.sendBeacon]
    }

    /// A broadcast beacon went out (`.sendBeacon`, or a name change): the
    /// schedule counts it, and every newcomer waiting for an answer heard it.
    mutating func noteBeaconSent(at now: Duration) {
        beacons.schedule.sent(at: now)
        answers.sentBeacon()
    }

    /// Nodes this one knows alive, itself included: its links, and the
    /// unlinked announcements heard more than once (a flood's inventions
    /// are heard once; a real node's start burst is three). The LAN's size
    /// for `BeaconSchedule`, counted once a turn. A flood that repeats its
    /// inventions can raise it to `maxAnnouncements`, which only stretches
    /// the interval to its cap.
    var knownNodeCount: Int {
        var count = established.count + 1
        for (number, timing) in announcements.timings where timing.heardCount >= 2 && established[number] == nil {
            count += 1
        }
        return count
    }

    /// An announcement lives about three of the LAN's beacon intervals:
    /// stretched as the schedule stretches them (the size as of the last
    /// turn). On a LAN large enough for beacons to be skipped, it also
    /// outlives the longest silence the schedule allows a settled node
    /// and one more turn: else a live node's entry expired between two of
    /// its beacons, the size counted only nodes heard lately, the smaller
    /// size shortened intervals, silences and this timeout alike (issue
    /// 29: 959 nodes on one host took turns every 18 s, a size of ~180,
    /// and sent 13 beacons a second where the schedule means 3; at 300,
    /// minutes after forming, ~150 and twice the beacons of this rule).
    /// The silence is the one a node counting twice our size may keep:
    /// sizes differ from node to node, and a peer that counts more stays
    /// silent longer (1,000 on one host: sizes of 208-1,000, p50 608, where
    /// the 608s forgot the 1,000s between two of their beacons).
    var announcementTimeout: Duration {
        let known = beacons.knownAtTurn
        let interval = beacons.schedule.interval(knownNodes: known)
        let stretched = discovery.deadPeerTimeout * max(interval / discovery.beaconInterval, 1)
        guard known > discovery.beaconPolicy.quietSize else { return stretched }
        let policy = discovery.beaconPolicy
        return max(stretched, beacons.schedule.maxSilence(knownNodes: 2 * known) + interval * (1 + policy.jitter))
    }

    // MARK: Answers to newcomers

    /// The answer to newcomer `number`: a beacon to its address alone when
    /// `AnswerRoute` allows and the unicast budget lasts, else
    /// `answerBeacon`, at once on a small LAN, after a short random wait on
    /// a large one (`NewcomerAnswers`; `dueAnswers` sends it, or dials,
    /// when due).
    mutating func answer(_ number: NodeNumber, at source: IPv4Endpoint, now: Duration, bounded: Bool) -> [TransportAction] {
        if AnswerRoute.choose(source: source, number: number, ownAddresses: beacons.ownAddresses, announcements: announcements) == .unicast,
           beacons.unicastAnswers.take(at: now) {
            return [.sendAnswer(to: source)]
        }
        // Counted now, not at the last turn: in a mass start a node's
        // first turns are seconds apart while the LAN grows by dozens.
        // Nodes heard once count here (not for the schedule): a node a
        // newcomer must be answered by cannot wait for a second beacon
        // (the newcomer finds it by its beacons).
        let known = discovery.massStartRules
            ? max(beacons.knownAtTurn, knownNodeCount, announcements.count + 1) : beacons.knownAtTurn
        switch answers.request(for: number, at: now, knownNodes: known, boundedLinks: bounded, random: draw()) {
        case .now: return answerBeacon(at: now)
        case .later: return []  // `dueAnswers` sends it, or dials, when due
        case .skipped: return []  // links bounded: a few others answer (`NewcomerAnswers.share`)
        case .dial: return []  // the dial rule's pass for the number follows (`dialsEarly`)
        }
    }

    /// Whether a delayed answer is due (the shell reads the discovery
    /// socket first: others' answers waiting there count too).
    func answersDue(at now: Duration) -> Bool { answers.nextDue.map { $0 <= now } ?? false }

    /// The delayed answers due now (`NewcomerAnswers`): one broadcast for
    /// those still needed; those that others' answers outnumbered become
    /// dials, which the tick's dial pass makes (`dialsEarly`). Run by the
    /// tick, so an idle node (ticks up to 250 ms apart) answers at its
    /// first tick past the due time: still well within the newcomer's
    /// second, and the spread helps the suppression.
    mutating func dueAnswers(at now: Duration) -> [TransportAction] {
        guard answersDue(at: now), answers.due(at: now).broadcast else { return [] }
        return answerBeacon(at: now)
    }

    /// An extra beacon, at most one per `answerBeaconGap`. One asked for
    /// sooner is not dropped but goes out when the gap ends (the next
    /// beacon turn moves up): a newcomer that must dial would otherwise
    /// hear of us only at our next regular beacon, up to 2.4 s later.
    /// Regular beacons do not count against the gap: one sent before the
    /// newcomer listened did not reach it (that cost every start 0.1 s).
    mutating func answerBeacon(at now: Duration) -> [TransportAction] {
        if let last = beacons.lastAnswerAt, now - last < discovery.answerBeaconGap {
            beacons.nextAt = min(beacons.nextAt, last + discovery.answerBeaconGap)
            beacons.answerDeferred = true
            return []
        }
        beacons.lastAnswerAt = now
        counts.answersBroadcast += 1
        return [.sendBeacon]
    }
}
