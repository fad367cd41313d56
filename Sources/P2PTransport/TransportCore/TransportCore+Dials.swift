import ChatCore

extension TransportCore {
    /// An announced peer whose dial is due by the dial rule (`dialPass`
    /// finds these in the announcements, with the overlay's say).
    struct DialCandidate: Sendable, Hashable {
        let number: NodeNumber
        let endpoint: IPv4Endpoint
        /// Proven: a handshake with this number succeeded before.
        let proven: Bool
        /// How many beacons announced it (a flood's inventions: one).
        let heard: Int

        init(number: NodeNumber, endpoint: IPv4Endpoint, proven: Bool, heard: Int) {
            self.number = number
            self.endpoint = endpoint
            self.proven = proven
            self.heard = heard
        }
    }

    /// Which due dials go now, within the dial budgets
    /// (`PeerLimits.maxPendingDials`, per address and in all, `maxLinks`,
    /// and `unprovenDialBurst` for numbers never proven), and which wait
    /// for a later pass (`.deferDial`), so a flood of announced inventions
    /// holds a bounded number of descriptors while real peers get their
    /// turn. Proven numbers first, then the most often heard.
    mutating func planDials(_ due: [DialCandidate], at now: Duration) -> [TransportAction] {
        guard !due.isEmpty else { return [] }
        // What the open links already hold of the budgets; each dial below adds to it.
        var load = dialLoad
        let ordered = due.sorted { a, b in
            if a.proven != b.proven { return a.proven }
            if a.heard != b.heard { return a.heard > b.heard }
            return a.number < b.number
        }
        var actions: [TransportAction] = []
        for candidate in ordered where !load.busy.contains(candidate.number) {
            // The fallback dial (the higher number's) is for a lower number
            // that cannot reach us; while a handshake from its address is
            // under way it may be that one (its number shows only at
            // message 3), and a second link would only be a duplicate.
            let fallback = !LinkArbiter.shouldDialOnDiscovery(local: me, remote: candidate.number)
            let address = candidate.endpoint.address
            if fallback, load.handshakingFrom.contains(address) { continue }
            guard load.pendingTotal < limits.maxPendingDials, load.linkCount < limits.maxLinks,
                  load.pendingPerAddress[address, default: 0] < limits.maxPendingDialsPerAddress,
                  candidate.proven || unprovenDials.take(at: now) else {
                actions.append(.deferDial(candidate.number))
                continue
            }
            load.pendingTotal += 1
            load.pendingPerAddress[address, default: 0] += 1
            load.linkCount += 1
            actions.append(.dial(candidate.endpoint, expecting: candidate.number))
        }
        return actions
    }
}
