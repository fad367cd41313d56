@testable import ChatCore
import Foundation
import Testing
import TestSupport

/// Differential test over generated frames: seeded random payloads (every
/// optional field sometimes present, sometimes null, sometimes absent),
/// written out by hand with shuffled keys, random whitespace, escaped and
/// unescaped unicode, and numbers at and past the edges of their types;
/// sometimes with a repeated or an unknown key. The fast path and the
/// JSONDecoder path must give the same answer whenever the fast path answers.
@Suite(.heavy) struct GeneratedPayloadTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func fastAndSlowPathsAgree(seed: UInt64) async {
        var random = SeededRandom(seed: seed)
        var answered = 0, accepted = 0, refusedDuplicates = 0
        for round in 0..<300 {
            // CPU-bound: let the suite's network tests have the pool too.
            if round % 25 == 0 { await Task.yield() }
            let line = Array(Self.frame(using: &random).utf8)
            let slow = FastPayloadParserTests.slow(line)
            if let fast = FastPayloadParserTests.fast(line) {
                answered += 1
                #expect(fast == slow, "\(String(decoding: line, as: UTF8.self))")
            }
            if case .success = slow { accepted += 1 }
            if case .failure(.duplicateKey) = slow { refusedDuplicates += 1 }
        }
        // The generator must exercise all three outcomes, or this proves little.
        #expect(answered > 60, "fast path answered \(answered)")
        #expect(accepted > 60, "accepted \(accepted)")
        #expect(refusedDuplicates > 5, "duplicates \(refusedDuplicates)")
    }

    // MARK: Generator

    static let texts = ["", "hi", "a b", "한국어", "👋🏽 family 👨‍👩‍👧", "quote \" back \\ slash /", "tab\tnew\nline", "\u{7F}\u{1}",
                        "e\u{301}", "\u{202E}rtl", String(repeating: "x", count: 300), "\u{FFFF}\u{10FFFF}"]
    static let integers: [String] = ["0", "1", "-1", "7", "65535", "65536", "9007199254740991", "9007199254740992",
                                     "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                                     "18446744073709551615", "1732147200000", "946684800000", "253402300799000", "253402300799001",
                                     "1.0", "1e3", "-0", "01", "1.5"]

    static func frame(using random: inout SeededRandom) -> String {
        let type = ["publicMessage", "directMessage", "ping", "hello", "historyRequest", "ack", "futureType"].randomElement(using: &random)!
        var fields: [(String, String)] = [
            ("version", random.chance(0.9) ? "1" : integers.randomElement(using: &random)!),
            ("type", quoted(type, using: &random)),
            ("messageId", quoted(randomID(using: &random), using: &random)),
            ("senderNumber", random.chance(0.8) ? String(Int.random(in: 1...99_999, using: &random)) : integers.randomElement(using: &random)!),
            ("senderNickname", quoted(random.chance(0.8) ? "alice" : texts.randomElement(using: &random)!, using: &random)),
            ("content", quoted(texts.randomElement(using: &random)!, using: &random)),
            ("timestamp", random.chance(0.8) ? String(Int64(1_732_147_200_000) + Int64.random(in: 0...1_000_000, using: &random))
                : integers.randomElement(using: &random)!),
        ]
        let optionals: [(String, (inout SeededRandom) -> String)] = [
            ("senderStage", { quoted(["ios", "", "한", "x\u{0}"].randomElement(using: &$0)!, using: &$0) }),
            ("targetNumber", { integers.randomElement(using: &$0)! }),
            ("refId", { quoted(randomID(using: &$0), using: &$0) }),
            ("automatic", { $0.chance(0.5) ? "true" : "false" }),
            ("instanceId", { quoted(texts.randomElement(using: &$0)!, using: &$0) }),
            ("listenPort", { integers.randomElement(using: &$0)! }),
            ("capabilities", { random in
                "[" + (0..<Int.random(in: 0...3, using: &random)).map { _ in quoted(["ack", "history", "é"].randomElement(using: &random)!, using: &random) }
                    .joined(separator: ",") + "]"
            }),
            ("sinceTimestamp", { integers.randomElement(using: &$0)! }),
            ("sinceId", { quoted(randomID(using: &$0), using: &$0) }),
            ("limit", { integers.randomElement(using: &$0)! }),
            ("more", { $0.chance(0.5) ? "true" : "false" }),
        ]
        for (name, value) in optionals where random.chance(0.3) {
            fields.append((name, random.chance(0.2) ? "null" : value(&random)))
        }
        if random.chance(0.05), !fields.isEmpty { fields.remove(at: Int.random(in: 0..<fields.count, using: &random)) }
        if random.chance(0.1) { fields.append(("zz\(Int.random(in: 0...9, using: &random))", "1")) }
        if random.chance(0.1) { fields.append(fields.randomElement(using: &random)!) }
        fields.shuffle(using: &random)
        let members = fields.map { name, value in space(&random) + quoted(name, using: &random) + space(&random) + ":" + space(&random) + value }
        return "{" + members.joined(separator: ",") + space(&random) + "}"
    }

    static func randomID(using random: inout SeededRandom) -> String {
        let id = MessageID(millis: 1_732_147_200_000, random: (random.next(), random.next())).description
        return random.chance(0.1) ? id.uppercased() : id
    }

    static func space(_ random: inout SeededRandom) -> String {
        random.chance(0.8) ? "" : [" ", "\t", "\n ", "\r\n"].randomElement(using: &random)!
    }

    /// A JSON string literal, each scalar written plainly or as \u escapes
    /// (surrogate pairs above the BMP) at random.
    static func quoted(_ text: String, using random: inout SeededRandom) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += random.chance(0.5) ? "\\\\" : "\\u005c"
            case "/" where random.chance(0.5): out += "\\/"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || random.chance(0.15) {
                    for unit in String(scalar).utf16 { out += String(format: "\\u%04x", unit) }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
