import ChatCore

/// A fingerprint of everything a simulated network did, in order: two
/// runs with the same seed must end with the same digest, and a failing
/// seed's trace says what happened.
///
/// Message ids and store epochs carry random bits the node draws itself,
/// so they enter the digest as the order in which the network first saw
/// them (#1, #2, …), which is itself part of the run.
public struct TraceDigest: Sendable {
    /// FNV-1a, 64 bits: a fingerprint to compare, not a secret.
    public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325
    public private(set) var count = 0
    /// The records themselves, when kept (to print a failing seed's run).
    public private(set) var lines: [String]?
    private var ids: [MessageID: Int] = [:]
    private var epochs: [String: Int] = [:]

    public init(keepingLines: Bool = false) {
        lines = keepingLines ? [] : nil
    }

    mutating func record(_ line: String) {
        for byte in line.utf8 {
            value = (value ^ UInt64(byte)) &* 0x0100_0000_01B3
        }
        value = (value ^ 0x0A) &* 0x0100_0000_01B3
        count += 1
        lines?.append(line)
    }

    /// The frame as the digest sees it: fields that decide what a node
    /// does, with ids and epochs canonical.
    mutating func describe(_ frame: P2PPayload) -> String {
        var text = "\(frame.type) \(canonical(frame.messageId)) by \(frame.senderNumber) at \(frame.timestamp)"
        if let target = frame.targetNumber { text += " to \(target)" }
        if let ref = frame.refId { text += " re \(canonical(ref))" }
        if !frame.content.isEmpty { text += " \"\(frame.content)\"" }
        if let cursor = frame.catchUp { text += " cursor \(canonical(epoch: cursor.epoch)):\(cursor.seq)" }
        if let limit = frame.limit { text += " limit \(limit)" }
        if let messages = frame.messages {
            text += " [" + messages.map { canonical($0.messageId) }.joined(separator: ",") + "]"
        }
        if frame.more == true { text += " more" }
        return text
    }

    private mutating func canonical(_ id: MessageID) -> String {
        if let known = ids[id] { return "#\(known)" }
        let next = ids.count + 1
        ids[id] = next
        return "#\(next)"
    }

    private mutating func canonical(epoch: String) -> String {
        if epoch.isEmpty { return "-" }
        if let known = epochs[epoch] { return "e\(known)" }
        let next = epochs.count + 1
        epochs[epoch] = next
        return "e\(next)"
    }
}
