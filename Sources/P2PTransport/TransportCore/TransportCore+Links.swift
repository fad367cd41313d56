import ChatCore

extension TransportCore {
    /// What an established link to the same number means for a new link.
    enum Standing: Sendable, Hashable {
        /// No established link, or the new one wins the tie-break.
        case clear
        /// The established link wins; the new one is a duplicate.
        case duplicate
        /// The established link (this id) belongs to another instance of the number.
        case conflict(Int)
    }

    func standing(of number: NodeNumber, instance: String, candidate: LinkDirection) -> Standing {
        guard let currentID = established[number], let current = links[currentID] else { return .clear }
        guard current.instance == instance else { return .conflict(currentID) }
        let verdict = LinkArbiter.resolve(local: me, remote: number, existing: current.direction, candidate: candidate)
        return verdict == .keepExisting ? .duplicate : .clear
    }

    /// The handshake proved the peer on link `id`. The dialler waits for
    /// the acceptor's first record (`acceptanceArrived`); the acceptor
    /// applies the link rules now: accept, drop as a duplicate, or hold
    /// while the rival link of another instance is probed.
    mutating func verified(_ id: Int, number: NodeNumber, instance: String, listen: IPv4Endpoint) -> [TransportAction] {
        guard var entry = links[id] else { return [] }
        entry.number = number
        entry.instance = instance
        entry.listen = listen
        links[id] = entry
        if let index = entry.staticIndex, statics.indices.contains(index) { statics[index].number = number }
        guard entry.direction == .inbound else { return [] }
        switch standing(of: number, instance: instance, candidate: .inbound) {
        case .conflict(let current):
            // A new instance while the old link may be alive: hold the new
            // link until a ping tells.
            links[id]?.lifecycle.hold()
            return [.probe(current)]
        case .duplicate:
            return [.close(id, .duplicate)]
        case .clear:
            break
        }
        var actions: [TransportAction] = []
        if established[number] == nil, let pending = pendingDial(to: number, listen: listen, besides: id) {
            if LinkArbiter.resolve(local: me, remote: number, existing: .outbound, candidate: .inbound) == .keepExisting {
                return [.close(id, .ownDialStays(number))]
            }
            actions.append(.close(pending, .peersDialStays(number)))
        }
        actions.append(.establish(id))
        return actions
    }

    /// The acceptor's first record arrived on our dial `id`: the link rules
    /// decide here too.
    mutating func acceptanceArrived(_ id: Int) -> [TransportAction] {
        guard let entry = links[id], entry.phase == .handshaking, let number = entry.number, let instance = entry.instance else { return [] }
        switch standing(of: number, instance: instance, candidate: .outbound) {
        case .conflict(let current): return [.close(id, .linkedFromAnotherInstance(number)), .probe(current)]
        case .duplicate: return [.close(id, .duplicate)]
        case .clear: return [.establish(id)]
        }
    }

    /// Our own unfinished dial to the node that just dialled us, known by
    /// the number we expect there or, for static dials whose number is not
    /// known yet, by the address it listens on. The oldest if several.
    func pendingDial(to number: NodeNumber, listen: IPv4Endpoint, besides id: Int) -> Int? {
        links.values.filter {
            $0.id != id && $0.direction == .outbound && $0.lifecycle.isUnfinished && ($0.number == number || $0.remote == listen)
        }.map(\.id).min()
    }

    /// Makes link `id` its peer's one link, after the shell carried out an
    /// `.establish` (an inbound link's acceptance written): the peer needs
    /// no dial, no answer, no backoff any more. Returns the link it
    /// replaces, now retiring, if any.
    mutating func establish(_ id: Int, at now: Duration) -> Int? {
        guard let number = links[id]?.number else { return nil }
        links[id]?.lifecycle.establish()
        announcements.linked(number)
        answers.linked(number)
        for index in statics.indices where statics[index].number == number { statics[index].backoff.reset() }
        let previous = established[number]
        established[number] = id
        guard let previous, previous != id else { return nil }
        links[previous]?.lifecycle.retire(at: now)
        return previous
    }

    /// Held links from another instance of `number`, oldest first.
    func heldLinks(of number: NodeNumber) -> [Int] {
        links.values.filter { $0.phase == .held && $0.number == number }.map(\.id).sorted()
    }

    /// The old link answered its probe (or a link is up): the held links
    /// of another instance are refused.
    func refuseHeld(for number: NodeNumber) -> [TransportAction] {
        heldLinks(of: number).map { .close($0, .heldRefused(number)) }
    }

    /// The old link is gone: the newest held link takes its place, the
    /// older ones close.
    func admitHeld(for number: NodeNumber) -> [TransportAction] {
        let held = heldLinks(of: number)
        guard let newest = held.last else { return [] }
        return held.dropLast().map { .close($0, .newerHeld(number)) } + [.establish(newest)]
    }
}
