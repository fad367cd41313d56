import ChatCore
import ChatWire
import Foundation
import TestSupport
import Testing

/// Named malformed inputs, each with the exact `FrameError` it must raise.
@Suite struct FrameCodecMalformedTests {
    typealias F = Fixtures

    /// A valid publicMessage line's fields, as raw JSON, in wire order.
    static let fields: [(String, String)] = [
        ("version", "2"),
        ("type", #""publicMessage""#),
        ("messageId", #""\#(F.id(1))""#),
        ("senderNumber", "2"),
        ("senderNickname", #""bob""#),
        ("content", #""hi""#),
        ("timestamp", "\(F.t0)"),
    ]

    /// The valid line with `changes` applied: a nil value removes the field,
    /// a new key is appended.
    static func line(_ changes: [String: String?] = [:]) -> String {
        var pairs = fields.compactMap { key, value -> String? in
            if let change = changes[key] { return change.map { #""\#(key)":\#($0)"# } }
            return #""\#(key)":\#(value)"#
        }
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) where !fields.contains(where: { $0.0 == key }) {
            if let value { pairs.append(#""\#(key)":\#(value)"#) }
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    static func decode(_ line: String) throws(FrameError) -> P2PPayload {
        try P2PFrameCodec.decode(Array(line.utf8))
    }

    /// `frame` alone must raise `expected`. The codec holds no state
    /// between frames (records frame the stream), so the frames after a bad
    /// one decode as before; how many a link tolerates is P2PService's.
    static func expectError(_ frame: [UInt8], _ expected: FrameError,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: expected, sourceLocation: sourceLocation) { try P2PFrameCodec.decode(frame) }
    }

    @Test func theBaseLineIsValid() throws {
        let payload = try Self.decode(Self.line())
        #expect(payload == F.frame(.publicMessage, from: F.bob, content: "hi", id: F.id(1)))
    }

    // MARK: Truncated frames

    @Test func aTruncatedFrameIsNotJSON() {
        // A record holds a whole frame, so a short one is malformed, not
        // "need more bytes".
        let full = P2PFrameCodec.encode(F.frame(.publicMessage, from: F.bob, content: "hi")).dropLast()
        Self.expectError(Array(full.dropLast(10)), .notJSON)
    }

    // MARK: Not JSON, not an object

    @Test(arguments: [
        "hello", "{", "}", #"{"version":1,"#, "{'version':1}", #"{"version":1}}"#, "{version:1}", "{\"a\":1 \"b\":2}",
    ])
    func notJSON(line: String) throws {
        #expect(throws: FrameError.notJSON) { try Self.decode(line) }
        Self.expectError(Array(line.utf8), .notJSON)
    }

    @Test(arguments: ["[]", "[1,2]", #"[{"version":1}]"#, "5", "-1.5", #""publicMessage""#, "true", "null"])
    func jsonButNotAnObject(line: String) throws {
        #expect(throws: FrameError.notAnObject) { try Self.decode(line) }
        Self.expectError(Array(line.utf8), .notAnObject)
    }

    // MARK: Missing and mistyped fields

    @Test(arguments: ["version", "type", "messageId", "senderNumber", "senderNickname", "content", "timestamp"])
    func missingRequiredField(field: String) throws {
        let line = Self.line([field: String?.none])
        #expect(throws: FrameError.missingField(field)) { try Self.decode(line) }
        Self.expectError(Array(line.utf8), .missingField(field))
    }

    @Test func emptyObjectNamesAMissingField() {
        #expect(throws: FrameError.missingField("version")) { try Self.decode("{}") }
    }

    @Test(arguments: [
        ("version", #""1""#), ("type", "5"), ("type", #"["ping"]"#), ("messageId", "5"), ("messageId", "{}"),
        ("senderNumber", #""2""#), ("senderNumber", "true"), ("senderNickname", "5"), ("senderStage", "[]"),
        ("content", "true"), ("content", #"{"text":"hi"}"#), ("timestamp", #""1732147200000""#),
        ("targetNumber", #""3""#), ("refId", "7"), ("automatic", #""yes""#), ("automatic", "1"),
        ("instanceId", "9"), ("listenPort", #""80""#), ("capabilities", #""ack""#), ("sinceTimestamp", "false"),
        ("sinceId", "[]"), ("limit", #""30""#), ("messages", "{}"), ("more", #""no""#),
    ])
    func wrongFieldType(field: String, value: String) throws {
        let line = Self.line([field: value])
        #expect(throws: FrameError.wrongFieldType(field)) { try Self.decode(line) }
        Self.expectError(Array(line.utf8), .wrongFieldType(field))
    }

    @Test func wrongTypeInsideAnArrayNamesThePath() {
        #expect(throws: FrameError.wrongFieldType("capabilities.[1]")) {
            try Self.decode(Self.line(["capabilities": #"["ack",5]"#]))
        }
    }

    @Test(arguments: ["version", "type", "messageId", "senderNumber", "senderNickname", "content", "timestamp"])
    func nullRequiredField(field: String) throws {
        let line = Self.line([field: "null"])
        #expect(throws: FrameError.wrongFieldType(field)) { try Self.decode(line) }
        Self.expectError(Array(line.utf8), .wrongFieldType(field))
    }

    // MARK: Impossible values

    /// The field named in an `.invalidValue`, or nil for another error.
    static func invalidField(of line: String) -> String? {
        do {
            _ = try decode(line)
            return nil
        } catch {
            if case .invalidValue(let field, _) = error { return field }
            Issue.record("expected invalidValue, got \(error)")
            return nil
        }
    }

    @Test(arguments: [
        #""nope""#, #""""#, #""0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1""#, #""0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1bz""#,
        #""{0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b}""#,
    ])
    func badUUID(value: String) {
        #expect(Self.invalidField(of: Self.line(["messageId": value])) == "messageId")
        #expect(Self.invalidField(of: Self.line(["refId": value])) == "refId")
        #expect(Self.invalidField(of: Self.line(["sinceId": value])) == "sinceId")
    }

    @Test(arguments: ["0", "-1", "9007199254740992", "18446744073709551616", "1e30", "-1e30", "1.5"])
    func badNodeNumber(value: String) {
        #expect(Self.invalidField(of: Self.line(["senderNumber": value])) == "senderNumber")
        #expect(Self.invalidField(of: Self.line(["targetNumber": value])) == "targetNumber")
    }

    @Test(arguments: [("version", "1.5"), ("listenPort", "80.5"), ("limit", "1e20"), ("sinceTimestamp", "1e19")])
    func fractionalOrHugeIntegers(field: String, value: String) {
        #expect(Self.invalidField(of: Self.line([field: value])) == field)
    }

    @Test func badNumberInsideAHistoryReplyNamesItsPath() {
        let inner = Self.line(["timestamp": "1.5"])
        let line = Self.line(["type": #""historyReply""#, "messages": "[\(Self.line()),\(inner)]"])
        #expect(Self.invalidField(of: line) == "messages.[1].timestamp")
    }

    @Test func largestNodeNumberIsAccepted() throws {
        #expect(try Self.decode(Self.line(["senderNumber": "9007199254740991"])).senderNumber.rawValue == (1 << 53) - 1)
    }

    @Test(arguments: [
        "0", "-1", "946684799999", "253402300799001", "9223372036854775807", "-9223372036854775808",
    ])
    func absurdTimestamp(value: String) throws {
        let line = Self.line(["timestamp": value])
        let expected = FrameError.invalidValue(field: "timestamp", reason: "outside years 2000...9999")
        #expect(throws: expected) { try Self.decode(line) }
        Self.expectError(Array(line.utf8), expected)
    }

    @Test(arguments: ["1e30", "9223372036854775808", "1732147200000.5"])
    func timestampThatIsNotAnInt64(value: String) {
        #expect(Self.invalidField(of: Self.line(["timestamp": value])) == "timestamp")
    }

    @Test(arguments: ["946684800000", "253402300799000"])
    func timestampAtTheEdgesIsAccepted(value: String) throws {
        #expect(try Self.decode(Self.line(["timestamp": value])).timestamp == Int64(value))
    }

    @Test(arguments: [
        ("version", "0", "must be at least 1"), ("version", "-3", "must be at least 1"),
        ("listenPort", "0", "not a TCP port"), ("listenPort", "65536", "not a TCP port"),
        ("limit", "-1", "negative"),
        ("sinceTimestamp", "-1", "outside years 1970...9999"),
        ("sinceTimestamp", "253402300799001", "outside years 1970...9999"),
    ])
    func outOfRangeOptionalValues(field: String, value: String, reason: String) throws {
        let line = Self.line([field: value])
        #expect(throws: FrameError.invalidValue(field: field, reason: reason)) { try Self.decode(line) }
    }

    @Test func historyReplyIsValidatedInside() throws {
        let inner = Self.line(["timestamp": "5"])
        #expect(throws: FrameError.invalidValue(field: "timestamp", reason: "outside years 2000...9999")) {
            try Self.decode(Self.line(["type": #""historyReply""#, "messages": "[\(Self.line()),\(inner)]"]))
        }
        let nested = Self.line(["type": #""historyReply""#, "messages": "[]"])
        #expect(throws: FrameError.invalidValue(field: "messages", reason: "nested history replies")) {
            try Self.decode(Self.line(["type": #""historyReply""#, "messages": "[\(nested)]"]))
        }
        #expect(throws: FrameError.missingField("content")) {
            try Self.decode(Self.line(["type": #""historyReply""#, "messages": "[\(Self.line(["content": String?.none]))]"]))
        }
    }

    // MARK: Bytes that are not UTF-8, and NULs

    static let badUTF8: [(String, [UInt8])] = [
        ("invalid byte 0xFF", [0xFF]),
        ("lone continuation byte", [0x80]),
        ("overlong slash", [0xC0, 0xAF]),
        ("truncated 3-byte sequence", [0xED, 0x95]),
        ("UTF-16 surrogate", [0xED, 0xA0, 0x80]),
        ("past U+10FFFF", [0xF4, 0x90, 0x80, 0x80]),
    ]

    @Test(arguments: badUTF8)
    func invalidUTF8InContent(name: String, bytes: [UInt8]) throws {
        let parts = Self.line(["content": #""XX""#]).components(separatedBy: "XX")
        let line = Array(parts[0].utf8) + bytes + Array(parts[1].utf8)
        #expect(throws: FrameError.invalidUTF8, "\(name)") { try P2PFrameCodec.decode(line) }
        Self.expectError(line, .invalidUTF8)
    }

    @Test(arguments: badUTF8)
    func invalidUTF8OutsideStrings(name: String, bytes: [UInt8]) {
        #expect(throws: FrameError.invalidUTF8, "\(name)") { try P2PFrameCodec.decode(bytes + Array(Self.line().utf8)) }
    }

    @Test func rawNulBytesAreNotJSON() throws {
        let parts = Self.line(["content": #""XX""#]).components(separatedBy: "XX")
        let insideString = Array(parts[0].utf8) + [0x00] + Array(parts[1].utf8)
        Self.expectError(insideString, .notJSON)
        let betweenTokens = [UInt8](Self.line().utf8) + [0x00]
        Self.expectError(betweenTokens, .notJSON)
        Self.expectError([0x00], .notJSON)
    }

    @Test func escapedNulIsJustText() throws {
        // "\u0000" is valid JSON; the codec passes it on and the terminal
        // renderer strips it (TerminalText).
        #expect(try Self.decode(Self.line(["content": #""a\u0000b""#])).content == "a\u{0}b")
    }

    @Test func unknownTypeDecodesAsUnknown() throws {
        let payload = try Self.decode(Self.line(["type": #""futureType""#, "newField": "[1]"]))
        #expect(payload.type == .unknown("futureType"))
        #expect(payload.content == "hi")
    }

    /// A version mismatch is the handshake's matter (docs/PROTOCOL.md
    /// 3.2): a frame reads with any `version` of at least 1 and refuses
    /// only what is below.
    @Test(arguments: [1, 2, 3, 99, Int(Int32.max)])
    func anyVersionFromOneUpDecodes(version: Int) throws {
        let line = Self.line(["version": "\(version)"])
        #expect(try Self.decode(line).version == version)
    }

    @Test(arguments: [0, -1])
    func versionBelowOneIsRefused(version: Int) {
        #expect(throws: FrameError.invalidValue(field: "version", reason: "must be at least 1")) {
            try Self.decode(Self.line(["version": "\(version)"]))
        }
    }

    @Test func everyMalformedCaseHasADescription() {
        let errors: [FrameError] = [
            .invalidUTF8, .notJSON, .notAnObject, .missingField("x"), .wrongFieldType("y"),
            .invalidValue(field: "z", reason: "r"), .duplicateKey("k"),
        ]
        #expect(Set(errors.map(\.description)).count == errors.count)
        #expect(FrameError.missingField("messageId").description.contains("messageId"))
    }
}

@Suite struct FrameCodecNameTests {
    static func line(_ field: String, _ value: String) -> [UInt8] {
        var object: [String: Any] = [
            "version": 1, "type": "publicMessage", "messageId": "0190f3c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f",
            "senderNumber": 7, "senderNickname": "bob", "content": "hi", "timestamp": 1_732_147_200_000,
        ]
        object[field] = value
        return Array(try! JSONSerialization.data(withJSONObject: object))
    }

    @Test(arguments: [
        ("senderNickname", ""),
        ("senderNickname", "   "),
        ("senderNickname", "bob\u{1B}[31m"),
        ("senderNickname", String(repeating: "n", count: 33)),
        ("senderStage", "a\u{07}"),
        ("senderStage", ""),
    ])
    func badNamesAreRefusedWithTheFieldNamed(field: String, value: String) {
        #expect {
            try P2PFrameCodec.decode(Self.line(field, value))
        } throws: { error in
            guard case FrameError.invalidValue(let named, _) = error else { return false }
            return named == field
        }
    }

    @Test func namesAtTheLimitPass() throws {
        let payload = try P2PFrameCodec.decode(Self.line("senderNickname", String(repeating: "가", count: 32)))
        #expect(payload.senderNickname.count == 32)
    }
}
