import Foundation
import Testing
@testable import ChatCrypto

/// The published Noise vectors (cacophony and snow, via mcginty/snow) for
/// the protocols lanchat knows; see Fixtures/noise-vectors.json. A vector
/// may give one psk per `psk` token (`init_psks`), used in order.
@Suite struct NoiseVectorTests {
    struct Message: Decodable { let payload: String; let ciphertext: String }
    struct Vector: Decodable {
        let protocol_name: String
        let origin: String
        let init_prologue: String
        let init_static: String
        let init_ephemeral: String
        let init_psks: [String]?
        /// The responder's static public key, known beforehand (X only).
        let init_remote_static: String?
        let resp_prologue: String
        let resp_static: String
        /// Absent in one-way patterns: the responder never writes.
        let resp_ephemeral: String?
        let resp_psks: [String]?
        let handshake_hash: String?
        let messages: [Message]
    }
    struct File: Decodable { let vectors: [Vector] }

    static func vectors() throws -> [Vector] {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: fixtureURL("noise-vectors.json"))).vectors
    }

    @Test func fixtureCoversEveryPattern() throws {
        let names = Set(try Self.vectors().map(\.protocol_name))
        #expect(names == Set(NoisePattern.allCases.map(\.protocolName)))
        #expect(names.contains("Noise_XXpsk0+psk3_25519_ChaChaPoly_SHA256"))
        #expect(names.contains("Noise_X_25519_ChaChaPoly_SHA256"))
        #expect(try Self.vectors().count == 5)
    }

    @Test(arguments: try vectors())
    func vectorPasses(_ vector: Vector) throws {
        let pattern = try #require(NoisePattern.allCases.first { $0.protocolName == vector.protocol_name })
        var initiator = try NoiseHandshake(
            pattern: pattern, role: .initiator, prologue: hex(vector.init_prologue),
            staticKey: X25519KeyPair(privateKey: hex(vector.init_static)),
            psks: (vector.init_psks ?? []).map(hex), remoteStaticKey: vector.init_remote_static.map(hex),
            ephemeralKey: X25519KeyPair(privateKey: hex(vector.init_ephemeral)))
        var responder = try NoiseHandshake(
            pattern: pattern, role: .responder, prologue: hex(vector.resp_prologue),
            staticKey: X25519KeyPair(privateKey: hex(vector.resp_static)),
            psks: (vector.resp_psks ?? []).map(hex),
            ephemeralKey: try vector.resp_ephemeral.map { try X25519KeyPair(privateKey: hex($0)) })

        var initiatorTransport: NoiseTransport?
        var responderTransport: NoiseTransport?
        for (index, message) in vector.messages.enumerated() {
            // One-way patterns: every message goes initiator -> responder.
            let fromInitiator = pattern.isOneWay || index % 2 == 0
            let payload = hex(message.payload)
            let written: [UInt8]
            let read: [UInt8]
            if !initiator.isFinished {
                if fromInitiator {
                    written = try initiator.writeMessage(payload)
                    read = try responder.readMessage(written)
                } else {
                    written = try responder.writeMessage(payload)
                    read = try initiator.readMessage(written)
                }
                if initiator.isFinished {
                    #expect(responder.isFinished)
                    initiatorTransport = try initiator.split()
                    responderTransport = try responder.split()
                }
            } else {
                if fromInitiator {
                    written = try initiatorTransport!.seal(payload)
                    read = try responderTransport!.open(written)
                } else {
                    written = try responderTransport!.seal(payload)
                    read = try initiatorTransport!.open(written)
                }
            }
            #expect(hexString(written) == message.ciphertext, "message \(index) of \(vector.origin)")
            #expect(read == payload, "message \(index) of \(vector.origin)")
        }
        #expect(initiator.isFinished)
        #expect(initiator.handshakeHash == responder.handshakeHash)
        if let expected = vector.handshake_hash {
            #expect(hexString(initiator.handshakeHash) == expected)
        }
        #expect(initiator.remoteStaticKey == (try X25519KeyPair(privateKey: hex(vector.resp_static))).publicKey)
        #expect(responder.remoteStaticKey == (try X25519KeyPair(privateKey: hex(vector.init_static))).publicKey)
    }
}

extension NoiseVectorTests.Vector: CustomTestStringConvertible {
    var testDescription: String { "\(protocol_name) (\(origin))" }
}
