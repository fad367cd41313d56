import ChatCore

extension TransportCore {
    /// Applies the connection limits (`PeerLimits`) to a new inbound
    /// connection: refused at once, or taken as a new link (after closing
    /// the oldest unfinished handshake if the pending total is full).
    mutating func admit(from remote: IPv4Endpoint, at now: Duration) -> [TransportAction] {
        guard links.count < limits.maxLinks else { return [.refuse(.linkCap(limits.maxLinks))] }
        guard connectionGate.admit(remote.address, at: now) else { return [.refuse(.connectionRate(remote))] }
        var pendingTotal = 0, pendingHere = 0
        var oldest: Int?
        for entry in links.values where entry.isPending {
            pendingTotal += 1
            if entry.remote.address == remote.address { pendingHere += 1 }
            if oldest.map({ entry.id < $0 }) ?? true { oldest = entry.id }
        }
        let perAddress = limits.maxPendingLinks(from: remote)
        guard pendingHere < perAddress else { return [.refuse(.pendingPerAddress(remote, limit: perAddress))] }
        var actions: [TransportAction] = []
        if pendingTotal >= limits.maxPendingLinks, let oldest {
            // The shell closes it (and reports `close`) before it takes the new one.
            actions.append(.close(oldest, .pendingEvicted(limit: limits.maxPendingLinks)))
        }
        let id = openInbound(from: remote, at: now)
        actions.append(.accept(id))
        return actions
    }

    /// What the open links hold of the dial budgets (`PeerLimits.maxPendingDials`,
    /// per address and in all, and `maxLinks`).
    struct DialLoad: Sendable, Hashable {
        /// Numbers some link (in any phase) is for.
        var busy: Set<NodeNumber> = []
        /// Our dials without a finished handshake, in all and per address.
        var pendingTotal = 0
        var pendingPerAddress: [UInt32: Int] = [:]
        /// Addresses an unfinished inbound handshake comes from.
        var handshakingFrom: Set<UInt32> = []
        var linkCount = 0
    }

    var dialLoad: DialLoad {
        var load = DialLoad(linkCount: links.count)
        for entry in links.values {
            if let number = entry.number { load.busy.insert(number) }
            guard entry.lifecycle.isUnfinished else { continue }
            if entry.direction == .outbound {
                load.pendingTotal += 1
                load.pendingPerAddress[entry.remote.address, default: 0] += 1
            } else {
                load.handshakingFrom.insert(entry.remote.address)
            }
        }
        return load
    }
}
