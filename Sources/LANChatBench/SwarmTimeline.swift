/// How a swarm of node processes came together: every 10 s from the first
/// launch, how many were launched and ready, how many separate groups
/// (connected components of the links they report) and the links a node
/// had. Printed beside the row's figures, so a size that never forms still
/// says how far it got and whether it was still converging.
struct SwarmTimeline: Sendable {
    struct Sample: Sendable {
        var seconds: Double
        var launched: Int
        var ready: Int
        var components: Int
        var links: String
        var load: Double
    }

    private(set) var samples: [Sample] = []
    /// Seconds between samples.
    let every: Double

    init(every: Double = 10) { self.every = every }

    /// Records a sample if `every` seconds passed since the last; true if it did.
    mutating func sample(at seconds: Double, launched: Int, graph: @autoclosure () -> Graph, load: Double) -> Bool {
        if let last = samples.last, seconds - last.seconds < every { return false }
        let shape = graph()
        samples.append(Sample(seconds: seconds, launched: launched, ready: shape.ready, components: shape.components,
                              links: shape.linkRange, load: load))
        return true
    }

    /// "10 s: 200 launched, 180 ready, 45 groups, links 0/2/5, load 80; ..."
    var summary: String {
        samples.map { sample in
            "\(Int(sample.seconds)) s: \(sample.launched) launched, \(sample.ready) ready, \(sample.components) groups, links \(sample.links), load \(Int(sample.load))"
        }.joined(separator: "; ")
    }

    var last: Sample? { samples.last }
}
