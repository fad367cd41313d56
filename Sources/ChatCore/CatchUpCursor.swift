/// A position in one peer's history, in that peer's own numbering: its
/// store's epoch (random, new whenever the store is new) and the arrival
/// sequence number it gave a message when storing it. Only the answering
/// peer assigns these, so no clock, its own or anyone's, can make catch-up
/// skip a message.
public struct CatchUpCursor: Hashable, Sendable, Codable {
    /// Longest epoch accepted from a peer.
    public static let maxEpochBytes = 64

    public var epoch: String
    public var seq: Int64

    public init(epoch: String, seq: Int64) {
        self.epoch = epoch
        self.seq = seq
    }

    /// As kept in the meta table: "epoch:seq".
    public var stored: String { "\(epoch):\(seq)" }

    public init?(stored: String) {
        guard let colon = stored.lastIndex(of: ":"), let seq = Int64(stored[stored.index(after: colon)...]) else { return nil }
        self.init(epoch: String(stored[..<colon]), seq: seq)
    }
}
