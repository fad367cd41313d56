import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatCrypto

/// The test vectors docs/PROTOCOL.md publishes (fixed keys -> exact bytes) are
/// generated here and compared with the document, so it cannot drift.
/// On a mismatch the generated block is printed, to paste in deliberately.
@Suite struct ProtocolVectorTests {
    static let beginMarker = "<!-- lanchat-v2-vectors:begin -->"
    static let endMarker = "<!-- lanchat-v2-vectors:end -->"

    static func key(_ byte: UInt8) -> [UInt8] { (0..<32).map { UInt8($0) &+ byte } }

    /// One handshake plus four records with fixed keys; every byte recorded.
    static func vector(groupSecretFile: [UInt8]?) throws -> [String: Any] {
        let group = try groupSecretFile.map { try GroupSecret(fileContents: $0) }
        let pattern = NoiseHandshake.lanchatPattern(hasGroupSecret: group != nil)
        let initStatic = try X25519KeyPair(privateKey: key(0x10)), respStatic = try X25519KeyPair(privateKey: key(0x20))
        let initEphemeral = try X25519KeyPair(privateKey: key(0x30)), respEphemeral = try X25519KeyPair(privateKey: key(0x40))
        let initIdentity = try IdentityKey(seed: key(0x50)), respIdentity = try IdentityKey(seed: key(0x60))
        let initHello = Array(#"{"nickname":"alice"}"#.utf8), respHello = Array(#"{"nickname":"bob"}"#.utf8)
        var initiator = try NoiseHandshake(pattern: pattern, role: .initiator, prologue: NoiseHandshake.lanchatPrologue,
                                           staticKey: initStatic, psk: group?.psk, ephemeralKey: initEphemeral)
        var responder = try NoiseHandshake(pattern: pattern, role: .responder, prologue: NoiseHandshake.lanchatPrologue,
                                           staticKey: respStatic, psk: group?.psk, ephemeralKey: respEphemeral)
        let m1 = try initiator.writeMessage()
        _ = try responder.readMessage(m1)
        let m2 = try responder.writeMessage(identity: respIdentity, hello: respHello)
        let ofResponder = try initiator.readIdentityMessage(m2)
        let m3 = try initiator.writeMessage(identity: initIdentity, hello: initHello)
        let ofInitiator = try responder.readIdentityMessage(m3)
        #expect(ofResponder.identity == respIdentity.publicKey && ofInitiator.identity == initIdentity.publicKey)
        var initTransport = try initiator.split(), respTransport = try responder.split()
        var records: [[String: String]] = []
        // Record-layer vectors: any bytes seal. On a link each plaintext is
        // one whole frame with no line end (PROTOCOL.md 4.1); the empty one
        // seals to a bare tag and a receiver counts it as a malformed frame.
        for (from, text) in [("initiator", "{\"type\":\"ping\"}"), ("responder", "{\"type\":\"pong\"}"),
                             ("initiator", "hello, bob"), ("initiator", "")] {
            let plaintext = Array(text.utf8)
            let record = from == "initiator" ? try initTransport.seal(plaintext) : try respTransport.seal(plaintext)
            let opened = from == "initiator" ? try respTransport.open(record) : try initTransport.open(record)
            #expect(opened == plaintext)
            records.append(["from": from, "plaintext": hexString(plaintext), "record": hexString(record)])
        }
        var vector: [String: Any] = [
            "protocol_name": pattern.protocolName,
            "prologue": hexString(NoiseHandshake.lanchatPrologue),
            "init_static": hexString(initStatic.privateKey), "init_ephemeral": hexString(initEphemeral.privateKey),
            "init_identity_seed": hexString(key(0x50)), "init_hello": hexString(initHello),
            "resp_static": hexString(respStatic.privateKey), "resp_ephemeral": hexString(respEphemeral.privateKey),
            "resp_identity_seed": hexString(key(0x60)), "resp_hello": hexString(respHello),
            "messages": [m1, m2, m3].map(hexString),
            "handshake_hash": hexString(initiator.handshakeHash),
            "records": records,
            "init_identity": identityFacts(initIdentity), "resp_identity": identityFacts(respIdentity),
        ]
        if let groupSecretFile, let group {
            let datagram = Array(#"{"v":2,"number":1}"#.utf8)
            vector["group_secret_file"] = hexString(groupSecretFile)
            vector["psk"] = hexString(group.psk)
            vector["beacon_datagram"] = hexString(datagram)
            vector["beacon_tag"] = hexString(group.beaconTag(datagram))
        }
        return vector
    }

    static func identityFacts(_ key: IdentityKey) -> [String: Any] {
        ["public_key": hexString(key.publicKey.rawValue), "node_number": key.nodeNumber.rawValue,
         "fingerprint": key.publicKey.fingerprint, "tag": key.nodeNumber.shortTag]
    }

    static func generatedBlock() throws -> String {
        let document: [String: Any] = ["vectors": [try vector(groupSecretFile: nil), try vector(groupSecretFile: Array("our group\n".utf8))]]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// The JSON between the markers in docs/PROTOCOL.md, without its ``` fence.
    static func publishedBlock() throws -> String? {
        let text = try ProjectDocument.wireProtocol.text()
        guard let begin = text.range(of: beginMarker), let end = text.range(of: endMarker) else { return nil }
        let block = text[begin.upperBound..<end.lowerBound]
        return block.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("```") }.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func protocolDocumentPublishesTheseExactVectors() throws {
        let generated = try Self.generatedBlock()
        let published = try #require(try Self.publishedBlock(), "docs/PROTOCOL.md has no vector block")
        if published != generated { print("docs/PROTOCOL.md vectors should read:\n\(generated)") }
        #expect(published == generated)
    }

    @Test func vectorsAreDeterministic() throws {
        #expect(try Self.generatedBlock() == Self.generatedBlock())
    }
}
