import ChatCore

/// The shell's view of the core's established links: each peer's one
/// link as its `PeerLink`. Built on each use from the two tables (no
/// copy: both are copy-on-write); the core decides which link is whose.
struct EstablishedLinks: Sequence {
    let ids: [NodeNumber: Int]
    let links: [Int: PeerLink]

    subscript(number: NodeNumber) -> PeerLink? { ids[number].flatMap { links[$0] } }

    var count: Int { ids.count }
    var isEmpty: Bool { ids.isEmpty }
    var values: [PeerLink] { ids.values.compactMap { links[$0] } }

    func makeIterator() -> some IteratorProtocol<(key: NodeNumber, value: PeerLink)> {
        ids.lazy.compactMap { number, id in links[id].map { (key: number, value: $0) } }.makeIterator()
    }
}
