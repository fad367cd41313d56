import ChatCore

extension TransportCore {
    /// A datagram from `source`. Our own number: our beacon coming back (its
    /// address is this host's, remembered for `AnswerRoute`) or another
    /// node with our number. A linked number: the link is the evidence
    /// (`linkedBeacon`). Otherwise the announcement table learns of it, a
    /// newcomer may be answered, and the dial rule looks at it once the
    /// overlay has heard it (`.peerHeard`, then `.checkDial`).
    mutating func beaconHeard(_ beacon: DiscoveryBeacon, from source: IPv4Endpoint, linked: PeerNames?,
                              at now: Duration, overlay: OverlayView) -> [TransportAction] {
        let number = beacon.number
        guard number != me else {
            if beacon.instanceId == discovery.instance {
                if beacons.ownAddresses.count < AnswerRoute.maxOwnAddresses { beacons.ownAddresses.insert(source.address) }
                return []
            }
            return [.numberClaimed(instance: beacon.instanceId, from: source)]
        }
        counts.beaconsReceived += 1
        if let linked, let id = established[number], let entry = links[id] {
            return linkedBeacon(beacon, from: source, link: entry, names: linked, at: now)
        }
        guard beacon.kind == .beacon else {
            // Anyone can send it in anyone's name: it changes nothing. A
            // gone node's announcement expires, and a dial to it fails fast.
            return [.ignoredBeacon(number, .leave)]
        }
        let observation = announcements.observe(beacon, from: source.address, at: now)
        if observation != .departed, observation != .refused {
            // It may not know us: our next periodic beacon is not redundant.
            beacons.schedule.heardUnlinked(number)
            // With links bounded, a known answer to the newcomers we wait to answer.
            answers.heardBeacon(from: number)
        }
        // Heard more than once, as `knownNodeCount` counts: a flood's
        // inventions (each heard once) cannot push the overlay past its threshold.
        let heardTwice = (announcements[number]?.heardCount ?? 0) >= 2
        var actions: [TransportAction] = []
        switch observation {
        case .departed:
            return []
        case .refused:
            counts.refusedAnnouncements += 1
            return []
        case .refreshed:
            // Heard again: nothing new to dial or answer, but the overlay
            // hears it. Its size estimate forgets a peer not heard for
            // `knownPeerLifetime` (fed only by new announcements and
            // links, it shrank under the exit threshold once links were
            // bounded, and 100 nodes flapped between a full mesh and
            // bounded views), and a peer its views gave up on (a failed
            // dial, a cable out) is a candidate again (two halves of a
            // healed LAN stayed two overlays).
            return heardTwice ? [.peerHeard(number)] : []
        case .new, .restarted:
            // A newcomer that must dial us hears us now rather than at
            // our next beacon (`AnswerRoute`: alone where it can be,
            // else by broadcast). One we dial learns us from the
            // handshake: no answer, which halves the datagrams every
            // node on the LAN wakes up for.
            // A number forgotten to make room and heard again (its count
            // came back with it) is no newcomer: with more nodes on one
            // address than the table keeps for it (300 on 127.0.0.1)
            // answering those made a storm of 370 beacons a second.
            let returning = observation == .new && (announcements[number]?.heardCount ?? 1) > 1
            // With links bounded on a LAN past `quietSize` the lower
            // number does not dial either (the overlay picks its peers),
            // so any node may answer (`NewcomerAnswers.share` keeps it
            // to a few); a small LAN answers as it always did.
            let boundedLAN = overlay.bounded && discovery.massStartRules && knownNodeCount > discovery.beaconPolicy.quietSize
            let asked = !LinkArbiter.shouldDialOnDiscovery(local: me, remote: number) || boundedLAN
            // There, a beacon whose sender says it has links is a settled
            // node's, new only to us (its last beacon was minutes ago): it
            // has peers, and an answer told it nothing (65 of the 107
            // broadcasts an idle 1,000 made in 20 s).
            let settled = boundedLAN && (beacon.links ?? 0) >= NewcomerAnswers.settledLinks
            if !returning, asked, !settled { actions += answer(number, at: source, now: now, bounded: overlay.bounded) }
        case .changed:
            break
        }
        if heardTwice { actions.append(.peerHeard(number)) }
        actions.append(.checkDial(number))
        return actions
    }

    /// A datagram naming a peer we have a link to. The link, not the
    /// datagram, is the evidence (a datagram is easy to forge): names change
    /// only by frames on the link, a leave counts only as a frame on the
    /// link, and another instance claiming the number is believed only if
    /// the link fails a ping (`.probe`); until then the claim waits in
    /// `claims` and the announcement table keeps the linked instance.
    private mutating func linkedBeacon(_ beacon: DiscoveryBeacon, from source: IPv4Endpoint, link: LinkEntry,
                                       names: PeerNames, at now: Duration) -> [TransportAction] {
        let announced = IPv4Endpoint(address: source.address, port: beacon.tcpPort)
        guard beacon.instanceId == link.instance else {
            guard beacon.kind == .beacon else { return [] }
            claims[beacon.number] = Claim(beacon: beacon, source: source)
            return [.probe(link.id)]
        }
        guard announced == link.listen else {
            // The same node heard through another interface repeats what we
            // know; anything else from elsewhere is someone else talking.
            guard beacon.kind == .leave || beacon.nickname != names.nickname || beacon.stage != names.stage
                    || beacon.tcpPort != link.listen?.port else { return [] }
            counts.beaconConflicts += 1
            return [.ignoredBeacon(beacon.number, .conflict(beacon.kind, announced: announced, linkedAt: link.listen))]
        }
        guard beacon.kind == .beacon else {
            // Not even a label for the link's end: a forged one would have
            // made a later crash read as a clean leave, and a peer that left
            // is not redialled (found by an attacker test, issue 31).
            return [.ignoredBeacon(beacon.number, .linkedLeave)]
        }
        // Keeps the announcement fresh for redials; names change only
        // by frames on the link, never by a datagram.
        _ = announcements.observe(beacon, from: source.address, at: now)
        // A linked peer knows us: one more that makes our next beacon
        // redundant, and maybe an answer that makes ours not worth a broadcast.
        beacons.schedule.heardLinked()
        answers.heardLinkedBeacon()
        return [.peerHeard(beacon.number)]
    }

    /// The linked peer answered the probe: the other instance's claim is refused.
    mutating func claimRefused(_ number: NodeNumber) {
        claims[number] = nil
    }

    /// `number`'s link is gone (its probe went unanswered, or it ended): the
    /// instance that claimed the number meanwhile is the one to dial now. A
    /// forger's claim costs at most a dial, and the real node's next beacon
    /// replaces it.
    mutating func acceptClaim(for number: NodeNumber, at now: Duration) -> [TransportAction] {
        guard let claim = claims.removeValue(forKey: number) else { return [] }
        switch announcements.observe(claim.beacon, from: claim.source.address, at: now) {
        case .departed, .refused: return []
        case .new, .restarted, .changed, .refreshed: return answerBeacon(at: now)
        }
    }

    /// A peer's established link closed (the shell told the node
    /// `.peerLeft`). A claim by another instance is taken up; a peer that
    /// said leave is not redialled, one that restarted is at once (its held
    /// link, if any, takes the place), one lost otherwise after backoff, and
    /// our next beacon helps it find us again (`BeaconSchedule`).
    mutating func linkLost(_ closed: ClosedLink, _ reason: PeerLeaveReason, at now: Duration) -> [TransportAction] {
        guard let number = closed.entry.number else { return [] }
        var actions = acceptClaim(for: number, at: now)
        switch reason {
        case .left:
            announcements.departLinked(number, instanceId: closed.entry.instance ?? "", at: now)
        case .restarted:
            announcements.redialNow(number, at: now)
            actions += admitHeld(for: number)
        case .timedOut, .disconnected:
            actions += scheduleRedial(number: number, staticIndex: closed.entry.staticIndex, at: now)
            beacons.schedule.linkLost()
        }
        return actions
    }

    /// Backs off the next dial of an announced peer or a static peer. A
    /// dial that stood for an answer failed: the answer goes out after all.
    mutating func scheduleRedial(number: NodeNumber?, staticIndex: Int?, at now: Duration) -> [TransportAction] {
        var actions: [TransportAction] = []
        if let number {
            announcements.scheduleRedial(number, at: now, jitter: jitter())
            if established[number] == nil, answers.dialFailed(number) { actions = answerBeacon(at: now) }
        }
        for index in statics.indices where index == staticIndex || (number != nil && statics[index].number == number) {
            statics[index].nextDialAt = now + statics[index].backoff.nextDelay(jitter: jitter())
        }
        return actions
    }

    /// Forgets announcements unheard for `announcementTimeout` (when the
    /// last plan found one due, or no longer holds), and the newcomers
    /// among them that waited for an answer. On a large LAN an unlinked
    /// peer's entry may expire between two of its beacons: its instance is
    /// remembered, so it is no newcomer when heard again.
    mutating func expireAnnouncements(at now: Duration) {
        if passNeeded(planned.expiryDue, at: now) {
            announcements.expire(at: now, timeout: announcementTimeout,
                                 remember: beacons.knownAtTurn > discovery.beaconPolicy.quietSize)
        }
        answers.forget { announcements[$0] == nil }
    }
}
