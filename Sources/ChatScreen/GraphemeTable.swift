/// The grapheme clusters of more than one scalar that a grid holds (ZWJ
/// families, skin tones, flags, combining accents), each stored once and
/// named in a `PackedCell` by its index. The grid empties it with its cells
/// each frame and compacts it when it outgrows them, so it never holds more
/// clusters than the grid has cells.
struct GraphemeTable: Sendable {
    private(set) var clusters: [Character] = []
    private var indexes: [Character: UInt32] = [:]

    var count: Int { clusters.count }

    /// The code naming `cluster`, adding it if new.
    mutating func code(for cluster: Character) -> UInt32 {
        if let index = indexes[cluster] { return PackedCell.interned | index }
        let index = UInt32(clusters.count)
        clusters.append(cluster)
        indexes[cluster] = index
        return PackedCell.interned | index
    }

    /// The cluster an interned code names.
    subscript(code: UInt32) -> Character { clusters[Int(code & ~PackedCell.interned)] }

    mutating func removeAll() {
        guard !clusters.isEmpty else { return }
        clusters.removeAll(keepingCapacity: true)
        indexes.removeAll(keepingCapacity: true)
    }
}
