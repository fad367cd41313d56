import ChatCore

/// Static peers (`--peer host:port`): dialled where broadcast cannot reach,
/// redialled after backoff while unlinked, never if the address is this
/// node itself. A name is looked up off the actor (`.resolveStatic`).
extension TransportCore {
    /// Whether static peer `index` needs a dial, its timing aside: not this
    /// node, not being resolved, and linked neither by its own dial nor
    /// otherwise (by number, or by address when it is an IPv4 literal).
    func staticPeerWantsDial(_ index: Int) -> Bool {
        let entry = statics[index]
        if entry.isSelf || entry.resolving || links.values.contains(where: { $0.staticIndex == index }) { return false }
        if let number = entry.number, established[number] != nil { return false }
        if let endpoint = IPv4Endpoint(host: entry.address.host, port: entry.address.port), isLinked(to: endpoint) { return false }
        return true
    }

    /// Whether an established link goes to the peer listening at `endpoint`.
    func isLinked(to endpoint: IPv4Endpoint) -> Bool {
        established.values.contains { links[$0]?.listen == endpoint }
    }

    /// The static peers due a dial: an address is dialled (and looked at
    /// again after `maxReconnectDelay` if the dial neither fails nor links),
    /// a name is looked up first.
    mutating func staticDials(at now: Duration) -> [TransportAction] {
        var actions: [TransportAction] = []
        for index in statics.indices {
            let entry = statics[index]
            guard now >= entry.nextDialAt, staticPeerWantsDial(index) else { continue }
            guard let endpoint = IPv4Endpoint(host: entry.address.host, port: entry.address.port) else {
                statics[index].resolving = true
                actions.append(.resolveStatic(index, entry.address))
                continue
            }
            statics[index].nextDialAt = now + discovery.maxReconnectDelay // replaced on failure
            actions += dialStatic(index, endpoint, at: now)
        }
        return actions
    }

    /// Static peer `index`'s name resolved (nil: it did not). An address
    /// some link already goes to (the peer dialled us) is not dialled: its
    /// number is learnt, so that link's loss redials it at once, and it is
    /// looked at again later, not on the next tick.
    mutating func staticResolved(_ index: Int, to endpoint: IPv4Endpoint?, at now: Duration) -> [TransportAction] {
        guard statics.indices.contains(index) else { return [] }
        statics[index].resolving = false
        guard let endpoint else {
            statics[index].nextDialAt = now + statics[index].backoff.nextDelay(jitter: jitter())
            return []
        }
        guard !isLinked(to: endpoint) else {
            if let linked = established.first(where: { links[$0.value]?.listen == endpoint }) { statics[index].number = linked.key }
            statics[index].nextDialAt = now + discovery.maxReconnectDelay
            return []
        }
        return dialStatic(index, endpoint, at: now)
    }

    /// A static dial, unless every link is taken: then it waits, backed off.
    private mutating func dialStatic(_ index: Int, _ endpoint: IPv4Endpoint, at now: Duration) -> [TransportAction] {
        guard canOpenLink else {
            counts.deferredDials += 1
            return scheduleRedial(number: statics[index].number, staticIndex: index, at: now)
        }
        return [.dialStatic(index, endpoint, expecting: statics[index].number)]
    }

    /// Our own hello came back on a static peer's dial to `port` (ours):
    /// that address is this node; it is never dialled again. Returns the
    /// addresses so marked, for the log.
    mutating func dialledItself(listeningOn port: Int) -> [HostPort] {
        var marked: [HostPort] = []
        for entry in links.values where entry.direction == .outbound && entry.phase == .handshaking {
            guard let index = entry.staticIndex, entry.remote.port == port, statics.indices.contains(index) else { continue }
            statics[index].isSelf = true
            marked.append(statics[index].address)
        }
        return marked
    }
}
