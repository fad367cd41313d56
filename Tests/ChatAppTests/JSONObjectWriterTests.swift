import Foundation
import Testing
@testable import ChatApp

/// `--json` lines are the bytes `JSONSerialization` writes for the same
/// object (keys sorted, slashes unescaped), so scripts see no change.
@Suite struct JSONObjectWriterTests {
    static func foundation(_ object: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    static func expectSame(_ object: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mine = try #require(JSONObjectWriter.encode(object), sourceLocation: sourceLocation)
        let theirs = try foundation(object)
        #expect(mine == theirs, "mine \(mine)\ntheirs \(theirs)", sourceLocation: sourceLocation)
    }

    @Test func everyASCIICharacterAndSomeBeyond() throws {
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        for text in [ascii, "a/b \"q\" \\ é 한글 👩‍👩‍👧 \u{2028}\u{2029}\u{FEFF}\u{7F}", "", "\u{1B}[31mred\u{1B}[0m"] {
            try Self.expectSame(["text": text])
        }
    }

    @Test func aMessageEvent() throws {
        try Self.expectSame([
            "event": "message", "room": "dm:4393289295727693", "id": "01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f",
            "from": Int64(4_393_289_295_727_693), "nickname": "alice", "name": "alice#3f2a", "text": "hi\nall",
            "timestamp": Int64(1_732_147_200_001), "mine": false, "automatic": true, "stage": "ios", "placement": "appendAndFollow",
        ])
    }

    @Test func nestedObjectsArraysAndKeyOrder() throws {
        try Self.expectSame([
            "event": "ok", "cmd": "stats", "re": "r1", "readMarker": "x", "b": 1, "B": 2, "aB": 3, "Ab": 33, "a": 4, "z": -7,
            "relayRefusals": 1, "relayedClaimingSelf": 2, "eventsDropped": 3, "catchUpDeferred": 4, "catchupA": 5,
            "transport": ["deadPeer": 0, "backpressure": 12] as [String: Int],
            "peers": [["number": UInt64(9), "name": "bob", "linked": true] as [String: Any]],
            "commands": ["send", "dm"], "empty": [String](), "none": [String: Any](),
            "big": UInt64.max, "small": Int64.min, "port": UInt16(47474), "count": Int32(-1),
        ])
    }

    @Test func keysInFoundationsOrder() throws {
        // Random keys of mixed-case letters, many sharing prefixes.
        var generator = SystemRandomNumberGenerator()
        let letters = Array("aAbBzZ")
        for _ in 0..<300 {
            var object: [String: Any] = [:]
            for value in 0..<8 {
                let key = String((0..<Int.random(in: 1...4, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
                object[key] = value
            }
            try Self.expectSame(object)
        }
    }

    @Test func parsedValuesAreWrittenAsFoundationWritesThem() throws {
        // Foundation numbers cast to Bool and Int alike: 1 must not become true.
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(#"{"x":1,"v":1.0,"z":0,"b":true,"s":"t","a":[0,false]}"#.utf8)) as? [String: Any])
        let theirs = try Self.foundation(parsed)
        let line = JSONObjectWriter.encode(parsed) ?? theirs
        #expect(line == theirs)
        #expect(line.contains(#""x":1"#) && line.contains(#""b":true"#))
    }

    @Test func otherValuesAreLeftToFoundation() {
        #expect(JSONObjectWriter.encode(["a_b": 1]) == nil)
        #expect(JSONObjectWriter.encode(["é": 1]) == nil)
        #expect(JSONObjectWriter.encode(["x1": 1]) == nil)
        #expect(JSONObjectWriter.encode(["ratio": 0.5]) == nil)
        #expect(JSONObjectWriter.encode(["when": Date()]) == nil)
        #expect(JSONObjectWriter.encode(["nested": ["ratio": 0.5] as [String: Any]]) == nil)
    }
}
