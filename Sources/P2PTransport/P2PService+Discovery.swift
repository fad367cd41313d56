import ChatCore
import ChatCrypto
import Foundation

extension P2PService {
    /// Most datagrams handled per readiness report.
    static let datagramsPerWakeup = 64
    /// Instance ids announcing our own number that are warned about; a
    /// flood of them is not remembered without bound.
    static let maxWarnedCollisions = 64

    /// Broadcasts a beacon (the core's `.sendBeacon`, or a name change) and
    /// tells the core if one went out.
    func sendBeacon() {
        if sendDiscovery(.beacon) { core.noteBeaconSent(at: now) }
    }

    /// Sends a beacon or leave datagram to every broadcast address. A full
    /// socket buffer drops it (the next beacon follows); a failing address
    /// is logged once, then at debug level. True if any went out.
    /// `unicast`: to that one address instead (an answer, `AnswerRoute`).
    @discardableResult
    func sendDiscovery(_ kind: DiscoveryBeacon.Kind, unicast: IPv4Endpoint? = nil) -> Bool {
        guard discovery >= 0, !broadcastTargets.isEmpty else { return false }
        var sent = false
        var beacon = DiscoveryBeacon(kind: kind, identity: identity, tcpPort: port, instanceId: instance)
        if kind == .beacon { beacon.links = core.established.count }
        let plain = configuration.groupSecret == nil ? beacon.encoded() : nil
        for target in unicast.map({ [$0] }) ?? broadcastTargets {
            guard let bytes = plain ?? sealed(beacon, toward: target) else { continue }
            do {
                if try Socket.sendDatagram(discovery, bytes, to: target) {
                    stats.beaconsSent += 1
                    sent = true
                }
            } catch {
                if warnedTargets.insert(target).inserted {
                    logger.warning("cannot send beacons to \(target.host): \(error)")
                } else {
                    logger.debug("beacon to \(target.host): \(error)")
                }
            }
        }
        return sent && unicast == nil && kind == .beacon
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
            guard discoverySources.admits(source.address, now: now, read: BroadcastScope.currentInterfaces) else {
                stats.offLANDatagrams += 1
                if warnedForeignSources.count < Self.maxWarnedCollisions,
                   warnedForeignSources.insert(UInt64(source.address) | 1 << 33).inserted {
                    logger.warning("ignored discovery datagrams from \(source.host), which is not on this host's LANs")
                }
                continue
            }
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

    /// A datagram from `source`, decided by the core (`TransportCore+Hearing`):
    /// it is told the linked peer's names if the number has a link.
    func handleBeacon(_ beacon: DiscoveryBeacon, from source: IPv4Endpoint) {
        let linked = beacon.number == identity.number ? nil
            : established[beacon.number]?.peer.map { PeerNames(nickname: $0.nickname, stage: $0.stage) }
        perform(core.handle(.beaconHeard(beacon, from: source, linked: linked, at: now, overlay: overlayView(for: beacon.number))))
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
}
