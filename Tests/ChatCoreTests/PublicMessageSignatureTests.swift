@testable import ChatCore
import Foundation
import Testing
import TestSupport

/// The bytes an author signs: exact, field by field, and the same as the
/// example docs/PROTOCOL.md gives (the wire fields surviving the codec:
/// ChatWireTests, `FrameFieldTests`).
@Suite struct PublicMessageSignatureTests {
    /// The example of docs/PROTOCOL.md, "Signed public messages".
    static let example = P2PPayload(
        type: .publicMessage, messageId: MessageID("01934c04-c009-7a00-9b00-000000000008")!,
        senderNumber: NodeNumber(rawValue: 4711)!, senderNickname: "alice", senderStage: "ios",
        content: "hi 👋", timestamp: 1_732_147_200_000)

    /// Written out by hand from the layout (and checked against an
    /// independent Python encoder), not captured from the code.
    static let exampleHex = """
        000000196c616e636861742d7632207075626c6963206d65737361676501934c\
        04c0097a009b000000000000080000000000001267000001934c04c000000000\
        05616c6963650100000003696f7300000007686920f09f918b00
        """

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func exampleHasExactBytes() {
        let bytes = PublicMessageSignature.canonicalBytes(of: Self.example)
        #expect(bytes.count == 90)
        #expect(Self.hex(bytes) == Self.exampleHex)
    }

    @Test func protocolDocumentShowsTheSameBytes() throws {
        let text = try ProjectDocument.wireProtocol.text()
        let section = try #require(text.components(separatedBy: "## Signed public messages").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let documented = block.filter(\.isHexDigit)
        #expect(documented == Self.exampleHex)
    }

    /// Every signed field changes the bytes; fields outside the signature
    /// (type, version, routing) do not.
    @Test func everySignedFieldCounts() {
        let base = PublicMessageSignature.canonicalBytes(of: Self.example)
        var edits: [(String, (inout P2PPayload) -> Void)] = [
            ("id", { $0.messageId = MessageID("01934c04-c009-7a00-9b00-000000000009")! }),
            ("author", { $0.senderNumber = NodeNumber(rawValue: 4712)! }),
            ("timestamp", { $0.timestamp += 1 }),
            ("nickname", { $0.senderNickname = "alicf" }),
            ("no stage", { $0.senderStage = nil }),
            ("empty stage", { $0.senderStage = "" }),
            ("content", { $0.content = "hi 👋 " }),
            ("automatic", { $0.automatic = true }),
        ]
        // Moving a byte from one string to the next must not give the same
        // bytes: the length prefixes keep field boundaries.
        edits.append(("boundary", { $0.senderNickname = "alic"; $0.senderStage = "eios" }))
        var seen: Set<[UInt8]> = [base]
        for (name, edit) in edits {
            var payload = Self.example
            edit(&payload)
            #expect(seen.insert(PublicMessageSignature.canonicalBytes(of: payload)).inserted, "\(name)")
        }
        var unsigned = Self.example
        unsigned.version = 9
        unsigned.refId = MessageID("01934c04-c009-7a00-9b00-00000000000a")!
        unsigned.signature = "x"
        #expect(PublicMessageSignature.canonicalBytes(of: unsigned) == base)
    }

    @Test func messageKeepsWhatArrived() throws {
        var signed = Self.example
        signed.signature = "c2ln"
        signed.authorKey = "a2V5"
        let message = try Message(from: signed, localNumber: NodeNumber(rawValue: 1)!)
        #expect(message.signature == "c2ln")
        #expect(message.authorKey == "a2V5")
    }
}
