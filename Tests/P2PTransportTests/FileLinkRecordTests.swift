import ChatCore
import ChatCrypto
import Foundation
@testable import P2PTransport
import Testing

/// The transfer link's records and handshake, as pure values.
@Suite struct FileLinkRecordTests {
    @Test(arguments: [
        FileLinkRecord.start(offset: 0, size: 0),
        .start(offset: 65_510, size: 1 << 40),
        .data(offset: 7, bytes: [1, 2, 3]),
        .data(offset: 0, bytes: [UInt8](repeating: 0xEE, count: FileTransferLimits.chunkBytes)),
        .end,
        .fail("no such offer"),
        .fail(""),
        .verified,
    ])
    func roundTrips(record: FileLinkRecord) throws {
        #expect(try FileLinkRecord(decoding: record.bytes) == record)
    }

    @Test func aFullDataRecordFitsOneNoiseRecord() {
        let bytes = FileLinkRecord.data(offset: 0, bytes: [UInt8](repeating: 0, count: FileTransferLimits.chunkBytes)).bytes
        #expect(bytes.count == RecordCipher.maxPlaintextLength)
    }

    @Test(arguments: [
        [UInt8](),
        [0x01, 0, 0],
        [0x02, 0, 0, 0, 0, 0, 0, 0, 0],
        [0x03, 0],
        [0x05, 1],
        [0x09],
        [0x04] + [UInt8](repeating: 0x41, count: 513),
    ])
    func refusesMalformed(bytes: [UInt8]) {
        #expect(throws: FileLinkRecord.Failure.self) { try FileLinkRecord(decoding: bytes) }
    }

    @Test func requestRoundTrips() throws {
        let id = try #require(MessageID("01934c04-c00a-7a00-9b00-000000000010"))
        let request = FileLinkRequest(id: id, offset: 123_456_789)
        #expect(request.bytes.count == FileLinkRequest.byteCount)
        #expect(try FileLinkRequest(decoding: request.bytes) == request)
        #expect(throws: FileLinkRecord.Failure.self) { try FileLinkRequest(decoding: Array(request.bytes.dropLast())) }
    }

    static func key(_ byte: UInt8) throws -> IdentityKey { try IdentityKey(seed: Array(repeating: byte, count: 32)) }

    /// Both sides learn each other's identity key; the request arrives;
    /// records then open on the other side.
    @Test func handshakeBindsBothIdentitiesAndCarriesTheRequest() throws {
        let receiverKey = try Self.key(1), senderKey = try Self.key(2)
        var receiver = try FileLinkHandshake(role: .initiator, credential: HandshakeIdentity.Credential(identity: receiverKey), groupSecret: nil)
        var sender = try FileLinkHandshake(role: .responder, credential: HandshakeIdentity.Credential(identity: senderKey), groupSecret: nil)
        let request = FileLinkRequest(id: MessageID(millis: 1, random: (2, 3)), offset: 42)
        let message2 = try sender.answer(try receiver.start())
        let (message3, senderSeen) = try receiver.finish(message2, request: request)
        let (receiverSeen, requested) = try sender.accept(message3)
        #expect(senderSeen == senderKey.publicKey && receiverSeen == receiverKey.publicKey)
        #expect(requested == request)
        #expect(FileLinkHandshake.matches(senderSeen, base64: Data(senderKey.publicKey.rawValue).base64EncodedString()))
        #expect(!FileLinkHandshake.matches(senderSeen, base64: Data(receiverKey.publicKey.rawValue).base64EncodedString()))
        var out = try #require(sender.transport), back = try #require(receiver.transport)
        #expect(try back.open(try out.seal(FileLinkRecord.end.bytes)) == FileLinkRecord.end.bytes)
    }

    /// A transfer handshake is not a chat link's: the prologues differ.
    @Test func aChatLinkHandshakeDoesNotOpenATransferLink() throws {
        var chat = try NoiseHandshake.lanchat(role: .initiator, staticKey: X25519KeyPair.generate(), groupSecret: nil)
        var sender = try FileLinkHandshake(role: .responder, credential: HandshakeIdentity.Credential(identity: try Self.key(2)), groupSecret: nil)
        let message2 = try sender.answer(try chat.writeMessage())
        #expect(throws: CryptoError.self) { _ = try chat.readIdentityMessage(message2) }
    }

    @Test func anotherGroupSecretFailsAtMessageOne() throws {
        let ours = try GroupSecret(fileContents: Array("ours".utf8)), theirs = try GroupSecret(fileContents: Array("theirs".utf8))
        var receiver = try FileLinkHandshake(role: .initiator, credential: HandshakeIdentity.Credential(identity: try Self.key(1)), groupSecret: theirs)
        var sender = try FileLinkHandshake(role: .responder, credential: HandshakeIdentity.Credential(identity: try Self.key(2)), groupSecret: ours)
        #expect(throws: FileLinkHandshake.Failure.self) { _ = try sender.answer(try receiver.start()) }
    }
}
