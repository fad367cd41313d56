import Foundation

/// What the author of a public message signs: a canonical byte string
/// built from the fields a reader sees, so a relaying node can change none
/// of them without the signature failing.
///
/// Layout (every integer big-endian; `str` is a u32 byte length followed by
/// that many bytes of UTF-8, exactly as sent, not normalised or trimmed):
///
///     str  context        "lanchat-v2 public message"
///     16   messageId      the UUID's 16 bytes
///     u64  senderNumber   the author's node number
///     i64  timestamp      ms since 1970, as sent (before any clamping)
///     str  senderNickname
///     u8   stage present  0 (no stage, then nothing) or 1 (then `str` stage)
///     str  content
///     u8   automatic      1 if `automatic` is true, else 0
///
/// The context string keeps a signature made for this purpose from being
/// valid for any other message kind that may be signed later.
/// PROTOCOL.md ("Signed public messages") carries an exact-bytes example
/// that a test checks, so the two cannot drift.
public enum PublicMessageSignature {
    /// Domain separation for public-message signatures.
    public static let context = "lanchat-v2 public message"
    /// Decoded sizes of the wire fields (Ed25519).
    public static let signatureBytes = 64
    public static let publicKeyBytes = 32

    /// The bytes the author signs for `payload` (its type is not part of
    /// them: only public messages are signed).
    public static func canonicalBytes(of payload: P2PPayload) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96 + payload.senderNickname.utf8.count + payload.content.utf8.count)
        appendString(context, to: &bytes)
        withUnsafeBytes(of: payload.messageId.uuid.uuid) { bytes.append(contentsOf: $0) }
        appendInteger(payload.senderNumber.rawValue, to: &bytes)
        appendInteger(UInt64(bitPattern: payload.timestamp), to: &bytes)
        appendString(payload.senderNickname, to: &bytes)
        if let stage = payload.senderStage {
            bytes.append(1)
            appendString(stage, to: &bytes)
        } else {
            bytes.append(0)
        }
        appendString(payload.content, to: &bytes)
        bytes.append(payload.automatic == true ? 1 : 0)
        return bytes
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        appendInteger(UInt32(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
