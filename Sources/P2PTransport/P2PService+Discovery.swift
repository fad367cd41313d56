import ChatCore
import ChatCrypto
import Foundation

extension P2PService {
    /// Most datagrams handled per readiness report.
    static let datagramsPerWakeup = 64
    /// Instance ids announcing our own number that are warned about; a
    /// flood of them is not remembered without bound.
    static let maxWarnedCollisions = 64

    /// Sends a beacon or leave datagram to every broadcast address. A full
    /// socket buffer drops it (the next beacon follows); a failing address
    /// is logged once, then at debug level.
    /// `unicast`: to that one address instead (an answer, `AnswerRoute`).
    func sendDiscovery(_ kind: DiscoveryBeacon.Kind, unicast: IPv4Endpoint? = nil) {
        guard discovery >= 0, !broadcastTargets.isEmpty else { return }
        let beacon = DiscoveryBeacon(kind: kind, identity: identity, tcpPort: port, instanceId: instance)
        let plain = configuration.groupSecret == nil ? beacon.encoded() : nil
        for target in unicast.map({ [$0] }) ?? broadcastTargets {
            guard let bytes = plain ?? sealed(beacon, toward: target) else { continue }
            do {
                if try Socket.sendDatagram(discovery, bytes, to: target) {
                    stats.beaconsSent += 1
                    if unicast == nil, kind == .beacon {
                        beaconSchedule.sent(at: now)
                        // Every newcomer heard it: no answer waits any more.
                        newcomerAnswers.sentBeacon()
                    }
                }
            } catch {
                if warnedTargets.insert(target).inserted {
                    logger.warning("cannot send beacons to \(target.host): \(error)")
                } else {
                    logger.debug("beacon to \(target.host): \(error)")
                }
            }
        }
    }

    /// `beacon` sealed for the group (`SealedBeacon`), bound to the source
    /// address a datagram to `target` leaves from; nil (logged once) if
    /// that address or the seal cannot be had.
    private func sealed(_ beacon: DiscoveryBeacon, toward target: IPv4Endpoint) -> [UInt8]? {
        guard let key = beaconSealKey else { return nil }
        do {
            let source: UInt32
            if let known = sourceAddresses[target] {
                source = known
            } else {
                source = try Socket.sourceAddress(toward: target)
                if sourceAddresses.count >= 64 { sourceAddresses.removeAll() }
                sourceAddresses[target] = source
            }
            return try SealedBeacon.seal(beacon, from: source, time: clock.nowMillis(), key: key,
                                         nonce: SecureRandom.bytes(BeaconSealKey.nonceByteCount))
        } catch {
            if warnedTargets.insert(target).inserted { logger.warning("cannot seal beacons to \(target.host): \(error)") }
            return nil
        }
    }

    func receiveDatagrams() {
        for _ in 0..<Self.datagramsPerWakeup {
            let received: (count: Int, from: IPv4Endpoint)?
            do {
                received = try Socket.receiveDatagram(discovery, into: &datagramBuffer)
            } catch {
                logger.warning("discovery socket: \(error)")
                return
            }
            guard let (count, source) = received else { return }
            if configuration.groupSecret != nil {
                if let beacon = openGroupDatagram(count: count, from: source) { handleBeacon(beacon, from: source) }
                continue
            }
            if count <= datagramBuffer.count, let known = beaconCache.beacon(for: datagramBuffer[0..<count]) {
                handleBeacon(known, from: source)
                continue
            }
            let beacon: DiscoveryBeacon
            do {
                guard count <= datagramBuffer.count else { throw DiscoveryBeacon.DecodeError.tooLarge(count) }
                beacon = try DiscoveryBeacon.decode(datagramBuffer[0..<count])
                beaconCache.remember(datagramBuffer[0..<count], as: beacon)
            } catch {
                if count <= datagramBuffer.count, isSealedBeacon(datagramBuffer[0..<count]) {
                    // A private group's beacon: not for us to read.
                    stats.foreignBeacons += 1
                    continue
                }
                stats.malformedBeacons += 1
                logger.debug("ignored a datagram from \(source): \(error)")
                continue
            }
            handleBeacon(beacon, from: source)
        }
    }

    func handleBeacon(_ beacon: DiscoveryBeacon, from source: IPv4Endpoint) {
        if beacon.number == identity.number {
            // Our own beacon coming back (from one of this host's
            // addresses, remembered for `AnswerRoute`), or another node
            // with our number.
            if beacon.instanceId == instance, ownAddresses.count < AnswerRoute.maxOwnAddresses {
                ownAddresses.insert(source.address)
            }
            if beacon.instanceId != instance, warnedCollisions.count < Self.maxWarnedCollisions,
               warnedCollisions.insert(beacon.instanceId).inserted {
                logger.warning("instance \(beacon.instanceId) at \(source.host) announces this node's number \(beacon.number)")
            }
            return
        }
        stats.beaconsReceived += 1
        if let link = established[beacon.number], let peer = link.peer {
            handleBeacon(beacon, from: source, about: link, peer: peer)
            return
        }
        let number = beacon.number
        switch beacon.kind {
        case .leave:
            // Anyone can send it in anyone's name: it changes nothing. A
            // gone node's announcement expires, and a dial to it fails fast.
            logger.debug("ignored a leave datagram for \(number); only a leave frame on a link counts")
        case .beacon:
            let observation = announcements.observe(beacon, from: source.address, at: now)
            if observation != .departed, observation != .refused {
                // It may not know us: our next periodic beacon is not redundant.
                beaconSchedule.heardUnlinked(number)
                // With links bounded, a known answer to the newcomers we wait to answer.
                newcomerAnswers.heardBeacon(from: number)
            }
            switch observation {
            case .departed:
                return
            case .refreshed:
                // Heard again: nothing new to dial or answer, but the overlay
                // hears it. Its size estimate forgets a peer not heard for
                // `knownPeerLifetime` (fed only by new announcements and
                // links, it shrank under the exit threshold once links were
                // bounded, and 100 nodes flapped between a full mesh and
                // bounded views), and a peer its views gave up on (a failed
                // dial, a cable out) is a candidate again (two halves of a
                // healed LAN stayed two overlays).
                if let heard = announcements[number]?.heardCount, heard >= 2 { overlayPeerHeard(number) }
                return
            case .refused:
                stats.refusedAnnouncements += 1
                return
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
                let asked = !LinkArbiter.shouldDialOnDiscovery(local: identity.number, remote: number)
                    || (overlayIsPartial && configuration.massStartRules && knownNodeCount > configuration.beaconPolicy.quietSize)
                if !returning, asked { answer(number, at: source) }
            case .changed:
                break
            }
            // Heard more than once, as `knownNodeCount` counts: a flood's
            // inventions (each heard once) cannot push the overlay past its threshold.
            if let heard = announcements[number]?.heardCount, heard >= 2 { overlayPeerHeard(number) }
            dialAnnouncedPeers(only: number)
        }
    }

    /// A datagram naming a peer we have a link to. The link, not the
    /// datagram, is the evidence (a datagram is easy to forge): names change
    /// only by frames on the link, a leave counts only as a frame on the
    /// link, and another instance claiming the number is believed only if
    /// the link fails a ping (`startProbe`); until then the claim waits in
    /// `pendingClaims` and the announcement table keeps the linked instance.
    private func handleBeacon(_ beacon: DiscoveryBeacon, from source: IPv4Endpoint, about link: PeerLink, peer: PeerInfo) {
        let announced = IPv4Endpoint(address: source.address, port: beacon.tcpPort)
        let fromLink = announced == link.listenEndpoint
        guard beacon.instanceId == peer.instanceId else {
            if beacon.kind == .beacon {
                pendingClaims[beacon.number] = (beacon, source)
                startProbe(link)
            }
            return
        }
        guard fromLink else {
            // The same node heard through another interface repeats what we
            // know; anything else from elsewhere is someone else talking.
            if beacon.kind == .leave || beacon.nickname != peer.nickname || beacon.stage != peer.stage
                || beacon.tcpPort != link.listenEndpoint?.port {
                stats.beaconConflicts += 1
                logger.debug("ignored a \(beacon.kind) for \(beacon.number) from \(announced); its link is to \(peer.address)")
            }
            return
        }
        switch beacon.kind {
        case .leave:
            // Not even a label for the link's end: a forged one would have
            // made a later crash read as a clean leave, and a peer that left
            // is not redialled (found by an attacker test, issue 31).
            logger.debug("ignored a leave datagram for linked \(beacon.number); its link's leave frame is the evidence")
        case .beacon:
            // Keeps the announcement fresh for redials; names change only
            // by frames on the link (`noteIdentity`), never by a datagram.
            _ = announcements.observe(beacon, from: source.address, at: now)
            // A linked peer knows us: one more that makes our next beacon
            // redundant, and maybe an answer that makes ours not worth a broadcast.
            beaconSchedule.heardLinked()
            newcomerAnswers.heardLinkedBeacon()
            overlayPeerHeard(beacon.number)
        }
    }

    /// `number`'s link is gone (its probe went unanswered, or it ended): the
    /// instance that claimed the number meanwhile is the one to dial now. A
    /// forger's claim costs at most a dial, and the real node's next beacon
    /// replaces it.
    func acceptPendingClaim(for number: NodeNumber) {
        guard let claim = pendingClaims.removeValue(forKey: number) else { return }
        switch announcements.observe(claim.beacon, from: claim.source.address, at: now) {
        case .departed, .refused: break
        case .new, .restarted, .changed, .refreshed: answerBeacon()
        }
    }

    /// With a group secret, only sealed beacons that open with the group's
    /// key, for the address they came from, within the clock window count
    /// (`SealedBeacon`): others are dropped before they can cause anything,
    /// counted, and logged once per address. Every sealed beacon is new
    /// bytes (a random nonce), so `beaconCache` has nothing to give here.
    private func openGroupDatagram(count: Int, from source: IPv4Endpoint) -> DiscoveryBeacon? {
        guard count <= datagramBuffer.count, let key = beaconSealKey else {
            stats.malformedBeacons += 1
            return nil
        }
        let datagram = datagramBuffer[0..<count]
        do {
            return try SealedBeacon.open(datagram, from: source.address, key: key, now: clock.nowMillis())
        } catch .malformed(let why) {
            stats.malformedBeacons += 1
            logger.debug("ignored a datagram from \(source): \(why)")
        } catch .stale(let age) {
            stats.foreignBeacons += 1
            logger.debug("ignored a group beacon from \(source) whose clock is \(age / 1_000) s from ours")
        } catch {
            stats.foreignBeacons += 1
            let unsealed = error == .notSealed
            if warnedForeignSources.count < Self.maxWarnedCollisions,
               warnedForeignSources.insert(UInt64(source.address) | (unsealed ? 1 << 32 : 0)).inserted {
                logger.warning(unsealed ? "a node without a group secret at \(source.host)"
                                        : "a node with a different group secret at \(source.host)")
            }
        }
        return nil
    }

    /// Whether a datagram that is not a plain beacon is a private group's
    /// sealed one (a node without a secret counts it as foreign).
    private func isSealedBeacon(_ datagram: ArraySlice<UInt8>) -> Bool {
        datagram.count <= DiscoveryBeacon.maxDatagramSize && datagram.firstRange(of: Self.sealedKey) != nil
    }

    static let sealedKey = Array(#""sealed":""#.utf8)

    /// The answer to newcomer `number`: a beacon to its address alone when
    /// `AnswerRoute` allows and the unicast budget lasts, else `answerBeacon`,
    /// at once on a small LAN, after a short random wait on a large one
    /// (`NewcomerAnswers`; the tick sends it, or dials, when due).
    private func answer(_ number: NodeNumber, at source: IPv4Endpoint) {
        if AnswerRoute.choose(source: source, number: number, ownAddresses: ownAddresses, announcements: announcements) == .unicast,
           unicastAnswers.take(at: now) {
            sendDiscovery(.beacon, unicast: source)
            return
        }
        // Counted now, not at the last turn: in a mass start a node's
        // first turns are seconds apart while the LAN grows by dozens.
        // Nodes heard once count here (not for the schedule): a node a
        // second old in a mass start has heard dozens once, and answering
        // each newcomer at once as on a small LAN made most of the answers
        // (2,300 of 300 nodes). A flood of invented numbers can only make
        // this node answer less (newcomers find it by its beacons).
        let known = configuration.massStartRules ? max(knownNodesAtTurn, knownNodeCount, announcements.count + 1) : knownNodesAtTurn
        switch newcomerAnswers.request(for: number, at: now, knownNodes: known,
                                       boundedLinks: overlayIsPartial, random: Double.random(in: 0..<1)) {
        case .now: answerBeacon()
        case .later: break  // the tick sends it, or dials, when due
        case .skipped: break  // links bounded: a few others answer (`NewcomerAnswers.share`)
        case .dial: break  // `dialAnnouncedPeers(only:)` follows in `handleBeacon`
        }
    }

    /// The delayed answers due now (`NewcomerAnswers`): one broadcast for
    /// those still needed, a dial for those that others' answers outnumbered.
    /// Run by the tick, so an idle node (ticks up to 250 ms apart) answers
    /// at its first tick past the due time: still well within the
    /// newcomer's second, and the spread helps the suppression.
    func sendDueAnswers() {
        guard let next = newcomerAnswers.nextDue, next <= now else { return }
        // Others' answers that arrived but wait in the socket count too: on
        // a busy host timers and reads wake together, and the timer first.
        receiveDatagrams()
        // The dials follow in the tick's pass (`dialDue` says they are due).
        if newcomerAnswers.due(at: now).broadcast { answerBeacon() }
    }

    /// An extra beacon, at most one per `answerBeaconGap`. One asked for
    /// sooner is not dropped but goes out when the gap ends (the ticker's
    /// next beacon moves up): a newcomer that must dial would otherwise
    /// hear of us only at our next regular beacon, up to 2.4 s later.
    /// Regular beacons do not count against the gap: one sent before the
    /// newcomer listened did not reach it (that cost every start 0.1 s).
    func answerBeacon() {
        if let last = lastAnswerBeaconAt, now - last < configuration.answerBeaconGap {
            nextBeaconAt = min(nextBeaconAt, last + configuration.answerBeaconGap)
            answerDeferred = true
            return
        }
        lastAnswerBeaconAt = now
        stats.answersBroadcast += 1
        sendDiscovery(.beacon)
    }
}
