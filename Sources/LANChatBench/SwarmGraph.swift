import Foundation

/// The links the nodes report, as an undirected graph (a link counts when
/// either end reports it).
struct Graph {
    let ready: Int
    /// Links per ready node.
    let links: [Int]
    let components: Int
    /// Nodes in each component, largest first.
    let sizes: [Int]

    init(_ states: [GossipChild.State]) {
        var index: [UInt64: Int] = [:]
        for (i, state) in states.enumerated() { if let number = state.number { index[number] = i } }
        ready = index.count
        var adjacency = Array(repeating: Set<Int>(), count: states.count)
        for (i, state) in states.enumerated() where state.number != nil {
            for peer in state.linked {
                guard let j = index[peer] else { continue }
                adjacency[i].insert(j)
                adjacency[j].insert(i)
            }
        }
        links = states.indices.filter { states[$0].number != nil }.map { adjacency[$0].count }
        var seen = Array(repeating: false, count: states.count)
        var sizes: [Int] = []
        for start in states.indices where states[start].number != nil && !seen[start] {
            var size = 1
            var stack = [start]
            seen[start] = true
            while let next = stack.popLast() {
                for peer in adjacency[next] where !seen[peer] {
                    seen[peer] = true
                    stack.append(peer)
                    size += 1
                }
            }
            sizes.append(size)
        }
        self.components = sizes.count
        self.sizes = sizes.sorted(by: >)
    }

    /// The largest components' sizes, for a log line.
    var sizeText: String {
        sizes.prefix(8).map(String.init).joined(separator: ", ") + (sizes.count > 8 ? ", ..." : "")
    }

    var linkRange: String { ProcessSwarm.Figures.spread(links) }
}
