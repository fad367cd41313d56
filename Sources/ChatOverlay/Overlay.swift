import ChatCore

/// One node's overlay: `Membership` (who to link to) and `Broadcast` (how
/// public messages cross those links), kept in step. Pure: the shell (the
/// simulator, or a node's `P2PService+Overlay`) feeds it what happened
/// and carries out the actions, in order. Broadcast's neighbours are
/// always membership's active view; what a peer does in broadcast
/// (delivers first, sends a bad signature, breaks a promise) moves its
/// score in membership, which replaces the worst.
public struct Overlay: Sendable {
    public private(set) var membership: Membership
    public private(set) var broadcast: Broadcast
    private var syncedVersion = 0
    /// Whether the broadcast's neighbours were taken as a full mesh's (all eager).
    private var syncedFullMesh = true

    public init(me: NodeNumber, config: OverlayConfig = OverlayConfig(), seed: UInt64, now: Duration) {
        membership = Membership(me: me, config: config, seed: seed, now: now)
        broadcast = Broadcast(config: config)
    }

    public var me: NodeNumber { membership.me }

    /// Live peers may go this long without a beacon (the discovery
    /// schedule's longest silence on a large LAN, minutes): a peer heard of
    /// stays known that long, not less than `knownPeerLifetime`. With 60 s
    /// against beacons minutes apart, a node that joined a settled LAN of
    /// 300 knew about 40 peers, fell back to a full mesh under the exit
    /// threshold, dialled everyone it heard (210 dials, 31 links), rose
    /// past the threshold on those links and fell back again once they
    /// aged out (issue 29).
    public mutating func peersMayBeSilent(for silence: Duration) {
        membership.knownLifetime = max(membership.config.knownPeerLifetime, silence)
    }

    public mutating func peerHeard(_ peer: NodeNumber, now: Duration) -> [OverlayAction] {
        settle(membership.peerHeard(peer, now: now), now: now)
    }

    public mutating func linkUp(_ peer: NodeNumber, now: Duration) -> [OverlayAction] {
        settle(membership.linkUp(peer, now: now), now: now)
    }

    public mutating func linkDown(_ peer: NodeNumber, now: Duration) -> [OverlayAction] {
        settle(membership.linkDown(peer, now: now), now: now)
    }

    /// A frame from `peer`. `verify` checks a new public message's
    /// signature (asked once per id, never for a duplicate).
    public mutating func received(_ frame: OverlayFrame, from peer: NodeNumber, now: Duration,
                                  verify: (P2PPayload) -> Bool) -> [OverlayAction] {
        switch frame {
        case .gossip(let gossip):
            // This node's own message coming back: one it sent while its
            // links were a full mesh never went through the broadcast, so
            // a peer that caught it up and announced it looks new here. It
            // is held already, and no lie: a duplicate, not a bad
            // signature (scored -50 it cut honest links after a healed
            // partition, lan-test --overlay).
            if gossip.message.senderNumber == me { broadcast.hold(gossip.id) }
            // In a full mesh the author sends to everyone itself: nobody relays (as before the overlay).
            return settle(broadcast.receive(gossip, from: peer, now: now, relay: !membership.isFullMesh, verify: verify), now: now)
        case .ihave, .graft, .prune:
            return settle(broadcast.receive(control: frame, from: peer, now: now), now: now)
        default:
            return settle(membership.received(frame, from: peer, now: now), now: now)
        }
    }

    /// This node's own public message (already stored and shown).
    public mutating func publish(_ message: P2PPayload, now: Duration) -> [OverlayAction] {
        settle(broadcast.publish(message, now: now), now: now)
    }

    /// Public messages stored from a catch-up: announced to the neighbours.
    public mutating func announce(_ messages: [P2PPayload], now: Duration) -> [OverlayAction] {
        guard !membership.isFullMesh else { return [] }
        return settle(broadcast.announce(messages, now: now), now: now)
    }

    public mutating func tick(now: Duration) -> [OverlayAction] {
        var out = membership.tick(now: now)
        out += broadcast.tick(now: now)
        return settle(out, now: now)
    }

    /// The next time `tick` is due: the earlier of the broadcast's timers
    /// and the membership's (`Membership.nextDeadline`), not a fixed period.
    public func nextTick(after now: Duration) -> Duration {
        let membershipDue = membership.nextDeadline(now: now)
        return min(membershipDue, broadcast.nextDeadline ?? membershipDue)
    }

    /// Brings broadcast's neighbours in line with the active view and
    /// hands broadcast's score notes to membership. A new neighbour is
    /// told the newest ids, and may start lazy, only above the threshold:
    /// in a full mesh every author sends to everyone, and a new link's
    /// catch-up covers the rest.
    private mutating func settle(_ out: [OverlayAction], now: Duration) -> [OverlayAction] {
        if syncedVersion != membership.viewVersion {
            syncedVersion = membership.viewVersion
            let active = membership.active
            let neighbors = broadcast.neighbors
            for peer in neighbors where active[peer] == nil { broadcast.neighborDown(peer) }
            let bounded = !membership.isFullMesh
            for peer in active.keys.sorted() where !broadcast.isNeighbor(peer) {
                broadcast.neighborUp(peer, bounded: bounded, now: now)
            }
        }
        if syncedFullMesh, !membership.isFullMesh {
            // Past the threshold: the full mesh's links were all eager.
            // Which stay eager differs from node to node (a hash of both
            // numbers), so no peer is everyone's first choice.
            let me = me.rawValue
            broadcast.limitEager { ($0.rawValue ^ me) &* 0x9E37_79B9_7F4A_7C15 }
        }
        syncedFullMesh = membership.isFullMesh
        guard !broadcast.notes.isEmpty else { return out }
        for (peer, note) in broadcast.notes { membership.note(peer, note) }
        broadcast.notes.removeAll(keepingCapacity: true)
        return out
    }
}
