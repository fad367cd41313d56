import ChatCore
extension OverlaySimulation {
    /// The figures so far (every message published, every live node).
    public func report() -> SimulationReport {
        var report = SimulationReport()
        let live = alive.filter { nodes[$0].overlay != nil }
        report.nodes = live.count
        report.messages = tracks.count
        var expected = 0, delivered = 0
        for track in tracks {
            var missing = 0
            for node in live where node != track.origin && nodes[node].joinedAt <= track.sentAt {
                expected += 1
                if node < track.received.count, track.received[node] { delivered += 1 } else { missing += 1 }
            }
            if missing == 0 { report.messagesFullyReached += 1 }
        }
        report.reach = expected == 0 ? 1 : Double(delivered) / Double(expected)
        let sortedHops = hops.sorted(), sortedDelays = delays.sorted()
        report.hopsP50 = Self.percentile(sortedHops, 0.5) ?? 0
        report.hopsP99 = Self.percentile(sortedHops, 0.99) ?? 0
        report.delayP50Millis = Double(Self.percentile(sortedDelays, 0.5) ?? 0) / 1e6
        report.delayP99Millis = Double(Self.percentile(sortedDelays, 0.99) ?? 0) / 1e6
        report.copiesPerDelivery = hops.isEmpty ? 0 : Double(copies) / Double(hops.count)
        let sizes = live.map { nodes[$0].overlay!.membership.active.count }
        report.linksMean = sizes.isEmpty ? 0 : Double(sizes.reduce(0, +)) / Double(sizes.count)
        report.linksMin = sizes.min() ?? 0
        report.linksMax = sizes.max() ?? 0
        let passive = live.map { nodes[$0].overlay!.membership.passive.count }
        report.passiveMean = passive.isEmpty ? 0 : Double(passive.reduce(0, +)) / Double(passive.count)
        report.framesSent = framesSent
        report.ihaveFrames = ihaveFrames
        report.graftedIDs = graftedIDs
        return report
    }

    /// Every live node has enough active peers and the active links connect them all.
    public func isRepaired() -> Bool {
        let live = alive.filter { nodes[$0].overlay != nil }
        guard let first = live.first else { return true }
        let wanted = min(config.overlay.activeViewMin, live.count - 1)
        var seen: Set<Int> = [first]
        var stack = [first]
        var adjacency: [Int: [Int]] = [:]
        for node in live {
            let peers = nodes[node].overlay!.membership.active.keys.map(Self.index).filter { nodes[$0].alive && nodes[$0].overlay != nil }
            if peers.count < wanted { return false }
            for peer in peers {
                adjacency[node, default: []].append(peer)
                adjacency[peer, default: []].append(node)
            }
        }
        while let node = stack.popLast() {
            for peer in adjacency[node] ?? [] where seen.insert(peer).inserted { stack.append(peer) }
        }
        return seen.count == live.count
    }

    /// How many live nodes hold `node` in their active view.
    public func inDegree(of node: Int) -> Int {
        let number = Self.number(node)
        return alive.filter { nodes[$0].overlay?.membership.active[number] != nil }.count
    }

    static func percentile<T>(_ sorted: [T], _ p: Double) -> T? {
        guard !sorted.isEmpty else { return nil }
        return sorted[Int((Double(sorted.count - 1) * p).rounded(.down))]
    }
}

extension OverlaySimulation {
    /// Live nodes that delivered the message `id`.
    public func deliveries(of id: MessageID) -> Int {
        guard let index = trackOf[id] else { return 0 }
        return tracks[index].received.enumerated().filter { $0.element && nodes[$0.offset].alive }.count
    }

    /// The share of active links that both ends hold (HyParView's views are symmetric but for links in flight).
    public func mutualShare() -> Double {
        var links = 0, mutual = 0
        for node in alive {
            guard let overlay = nodes[node].overlay else { continue }
            for peer in overlay.membership.active.keys {
                links += 1
                if nodes[Self.index(peer)].overlay?.membership.active[Self.number(node)] != nil { mutual += 1 }
            }
        }
        return links == 0 ? 1 : Double(mutual) / Double(links)
    }
}
