import ChatCore
import ChatNode
import ChatStore
import Foundation

/// Encodes events and replies for `--json` as one compact JSON object per
/// line, keys sorted. Text fields carry exactly what peers sent (JSON escapes
/// control characters), so scripts see the data, not a rendering of it.
public enum JSONEventEncoder {
    public static func line(_ object: [String: Any]) -> String {
        if let line = JSONObjectWriter.encode(object) { return line }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
              let text = String(data: data, encoding: .utf8) else {
            return #"{"event":"error","message":"could not encode event"}"#
        }
        return text
    }

    public static func message(_ message: Message, localNumber: NodeNumber, name: String, verified: Bool = false) -> [String: Any] {
        var object: [String: Any] = [
            "event": "message", "room": message.room.description, "id": message.id.description,
            "from": message.senderNumber.rawValue, "nickname": message.senderNickname, "name": name,
            "text": message.content, "timestamp": message.timestamp,
            "mine": message.senderNumber == localNumber, "automatic": message.automatic,
        ]
        if let stage = message.senderStage { object["stage"] = stage }
        if verified { object["verified"] = true }
        return object
    }

    /// A peer; with `trust`, its `trust` state, `firstSeen` and `verified`.
    /// `linked` (the `peers` reply only): false for a peer only heard of.
    public static func peer(_ info: PeerInfo, name: String, trust: PeerTrust? = nil, linked: Bool? = nil) -> [String: Any] {
        var object: [String: Any] = [
            "number": info.number.rawValue, "nickname": info.nickname, "name": name,
            "address": info.address, "instanceId": info.instanceId,
        ]
        if let linked { object["linked"] = linked }
        if let stage = info.stage { object["stage"] = stage }
        if let fingerprint = info.fingerprint { object["fingerprint"] = fingerprint }
        if let key = info.identityKey { object["identityKey"] = key }
        if let trust { object.merge(Self.trust(trust)) { _, new in new } }
        return object
    }

    public static func room(_ room: RoomOverview) -> [String: Any] {
        var object: [String: Any] = ["room": room.room.description, "title": room.title, "unread": room.unread]
        if let state = room.dmState { object["dmState"] = state.rawValue }
        if let last = room.last { object["lastTimestamp"] = last.timestamp; object["lastText"] = last.content }
        return object
    }

    public static func summary(_ room: RoomSummary) -> [String: Any] {
        var object: [String: Any] = ["room": room.room.description, "unread": room.unreadCount, "messages": room.messageCount]
        if let nickname = room.peerNickname { object["title"] = nickname } else if room.room == .publicRoom { object["title"] = "public" }
        if let state = room.dmState { object["dmState"] = state.rawValue }
        if let last = room.lastMessage { object["lastTimestamp"] = last.timestamp }
        if let preview = room.lastPreview { object["lastText"] = preview }
        return object
    }

    /// The `stats` reply's counters (docs/OPERATIONS.md, "Limits a peer meets").
    public static func stats(_ counters: NodeCounters, transport: [String: Int]) -> [String: Any] {
        [
            "transport": transport, "receivedByType": counters.receivedByType, "stored": counters.stored,
            "rejected": counters.rejected,
            "unknownType": counters.unknownType, "duplicates": counters.duplicates,
            "clampedTimestamps": counters.clampedTimestamps, "catchUpRefused": counters.catchUpRefused,
            "catchUpDeferred": counters.catchUpDeferred, "catchUpInvalid": counters.catchUpInvalid,
            "acksSent": counters.acksSent, "dmRetries": counters.dmRetries,
            "signatureRefusals": counters.signatureRefusals, "relayedClaimingSelf": counters.relayedClaimingSelf,
            "relayRefusals": counters.relayRefusals,
            "catchUpUnsolicited": counters.catchUpUnsolicited, "catchUpPages": counters.catchUpPages,
            "backpressure": counters.backpressure,
            "commitFailures": counters.commitFailures, "eventsDropped": counters.eventsDropped,
            "quotaRefused": counters.quotaRefused, "agedOut": counters.agedOut, "catchUpTimeouts": counters.catchUpTimeouts,
        ]
    }

    public static func error(_ message: String, re requestID: String?) -> [String: Any] {
        var object: [String: Any] = ["event": "error", "message": message]
        if let requestID { object["re"] = requestID }
        return object
    }

    /// `trust`, `verified`, `firstSeen`, `verifiedAt` (docs/USAGE.md).
    public static func trust(_ trust: PeerTrust) -> [String: Any] {
        var object: [String: Any] = ["trust": trust.state.rawValue, "verified": trust.isVerified]
        if let first = trust.firstSeen { object["firstSeen"] = first }
        if let at = trust.verifiedAt { object["verifiedAt"] = at }
        return object
    }

    /// The `keyChanged` event (docs/USAGE.md).
    public static func keyChanged(_ change: KeyChange, name: String, trust: PeerTrust?) -> [String: Any] {
        var object: [String: Any] = [
            "event": "keyChanged", "peer": peer(change.peer, name: name, trust: trust), "nickname": change.peer.nickname,
            "fingerprint": change.fingerprint, "previousFingerprint": change.previousFingerprint,
            "previousVerified": change.previousVerified, "dmsHeld": change.previousVerified,
        ]
        if let first = change.previousFirstSeen { object["previousFirstSeen"] = first }
        return object
    }

    /// The `verify` reply's fields.
    public static func verification(_ result: KeyVerification, name: String) -> [String: Any] {
        var object: [String: Any] = [
            "number": result.number.rawValue, "nickname": result.nickname, "name": name, "fingerprint": result.fingerprint,
            "identityKey": result.key, "confirmed": result.confirmed, "released": result.released, "held": result.held,
        ]
        object.merge(trust(result.trust)) { _, new in new }
        if let number = result.safetyNumber { object["safetyNumber"] = number }
        return object
    }
}
