import ChatCore
import ChatWire
import Foundation

/// Fuzz target: everything a received frame goes through before the chat
/// models see it.
///
/// The input is one frame, the plaintext of one record as a link opens it
/// (the records themselves: record-decoding). It is decoded with
/// `P2PFrameCodec.decode` (a `FrameError` is fine; anything else is a
/// crash). A frame that decodes must survive
/// encode → decode unchanged, carry names that pass `NodeName`, and give a
/// `Message` (or a `TextValidationError`) whose text obeys the 240-character
/// rule. The same bytes as text go through `MessageText`, `NodeName` and
/// `TerminalText`, whose output must hold no control characters.
@_cdecl("LLVMFuzzerTestOneInput")
public func payloadDecodingFuzzTarget(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let text = String(decoding: bytes, as: UTF8.self)
    checkText(text)

    let decoded: P2PPayload?
    do {
        decoded = try P2PFrameCodec.decode(bytes, using: sharedDecoder)
    } catch {
        decoded = nil
    }
    guard let payload = decoded else { return 0 }

    let again = try? P2PFrameCodec.decode(P2PFrameCodec.encode(payload).dropLast(), using: sharedDecoder)
    fuzzCheck(again == payload, "frame changed through encode and decode")
    fuzzCheck((try? NodeName.validated(payload.senderNickname)) != nil, "accepted a bad senderNickname")
    if let stage = payload.senderStage {
        fuzzCheck((try? NodeName.validated(stage)) != nil, "accepted a bad senderStage")
    }
    fuzzCheck(payload.timestamp >= 946_684_800_000 && payload.timestamp <= 253_402_300_799_000, "accepted timestamp \(payload.timestamp)")
    fuzzCheck(payload.senderNumber.rawValue >= 1 && payload.senderNumber.rawValue < 1 << 53, "accepted a bad senderNumber")
    let local = NodeNumber(rawValue: 4711)!
    for frame in [payload] + (payload.messages ?? []) {
        fuzzCheck(frame.messages == nil || frame == payload, "nested history reply accepted")
        if let message = try? Message(from: frame, localNumber: local) {
            checkValidText(message.content)
            _ = TerminalText.sanitize(message.content)
            _ = message.room
        }
    }
    return 0
}

/// One decoder for every run (making one per input costs more than using
/// it).
private let sharedDecoder = JSONDecoder()

/// The text rules and terminal sanitising on arbitrary text.
private func checkText(_ text: String) {
    if let valid = try? MessageText.validated(text) {
        checkValidText(valid)
    }
    if let name = try? NodeName.validated(text) {
        fuzzCheck(!name.isEmpty && name.count <= ChatLimits.maxNameCharacters, "name rules broken")
        fuzzCheck(!name.unicodeScalars.contains { $0.properties.generalCategory == .control }, "control character in a name")
        fuzzCheck((try? NodeName.validated(name)) == name, "name validation is not idempotent")
    }
    let safe = TerminalText.sanitize(text)
    for scalar in safe.unicodeScalars {
        let value = scalar.value
        let forbidden = value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F || value == 0x061C
        fuzzCheck(!forbidden, "sanitized text keeps U+\(String(value, radix: 16))")
    }
    fuzzCheck(TerminalText.sanitize(safe) == safe, "sanitizing twice changes the text")
}

private func checkValidText(_ text: String) {
    fuzzCheck(!text.isEmpty, "empty text accepted")
    fuzzCheck(text.count <= ChatLimits.maxMessageCharacters, "\(text.count) characters accepted")
    fuzzCheck(text.utf8.count <= ChatLimits.maxMessageBytes, "\(text.utf8.count) bytes accepted")
    fuzzCheck((try? MessageText.validated(text)) == text, "text validation is not idempotent")
}
