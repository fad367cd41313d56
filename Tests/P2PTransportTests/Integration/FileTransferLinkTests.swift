import ChatCore
import ChatCrypto
import Foundation
import Glibc
@testable import P2PTransport
import Synchronization
import Testing
import TestSupport

/// Two `FileTransferService`s on loopback: files arrive byte for byte,
/// resume from a partial file, and every refusal of "Binding" and of the
/// receiver's checks holds.
@Suite(.realTime) struct FileTransferLinkTests {
    /// One service with the events it reported.
    final class Side: Sendable {
        let key: IdentityKey
        let service: FileTransferService
        let events = Mutex<[FileLinkEvent]>([])
        var base64: String { Data(key.publicKey.rawValue).base64EncodedString() }

        init(seed: UInt64, recordPause: Duration = .zero) throws {
            key = TestNetwork.key(seed)
            service = try FileTransferService(identity: key, groupSecret: nil, pacing: FilePacing(recordBytes: FileTransferLimits.chunkBytes, pause: recordPause))
            _ = try service.start()
            let stream = service.linkEvents
            Task { [self] in for await event in stream { self.events.withLock { $0.append(event) } } }
        }

        func saw(_ matching: (FileLinkEvent) -> Bool) -> Bool { events.withLock { $0.contains(where: matching) } }
        func failure(_ id: MessageID) -> String? {
            events.withLock { events in
                for case .failed(let failed, let reason) in events where failed == id { return reason }
                return nil
            }
        }
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    static func newID() -> MessageID { MessageID(millis: Int64(Date().timeIntervalSince1970 * 1000), random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max))) }

    /// Serves `path` from `sender` to `receiver` and returns the fetch request.
    static func offer(_ path: String, from sender: Side, to receiver: Side, partial: String, sha: String? = nil) throws -> FetchRequest {
        let facts = try sender.service.inspect(path: path)
        let id = newID()
        sender.service.serve(ServedFile(id: id, peerKey: receiver.base64, peer: receiver.key.nodeNumber, path: path, facts: facts))
        return FetchRequest(id: id, peerKey: sender.base64, host: "127.0.0.1", port: sender.service.port, partialPath: partial,
                            size: facts.size, sha256: sha ?? facts.sha256)
    }

    @Test(arguments: [0, 1, FileTransferLimits.chunkBytes, FileTransferLimits.chunkBytes + 1, 3 * 1_048_576 + 7])
    func arrivesByteForByte(size: Int) async throws {
        let scratch = try ScratchDirectory()
        let sender = try Side(seed: 1), receiver = try Side(seed: 2)
        let content = Self.randomBytes(size, seed: UInt64(size))
        let request = try Self.offer(try scratch.file("source.bin", bytes: content), from: sender, to: receiver,
                                     partial: scratch.path + "/part")
        receiver.service.fetch(request)
        try #require(await waitUntil("received") { receiver.saw { $0 == .received(request.id) } })
        #expect(await waitUntil("sender told") { sender.saw { $0 == .sent(request.id) } })
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: request.partialPath))) == content)
        let mode = try FileManager.default.attributesOfItem(atPath: request.partialPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(receiver.service.counters.bytesReceived == Int64(size))
        #expect(receiver.service.counters.linksDialled == 1)
        sender.service.stop()
        receiver.service.stop()
    }

    @Test func resumesFromThePartialFile() async throws {
        let scratch = try ScratchDirectory()
        let sender = try Side(seed: 1), receiver = try Side(seed: 2)
        let content = Self.randomBytes(1_000_000, seed: 9)
        let partial = try scratch.file("part", bytes: Array(content.prefix(400_000)))
        let request = try Self.offer(try scratch.file("source.bin", bytes: content), from: sender, to: receiver, partial: partial)
        receiver.service.fetch(request)
        try #require(await waitUntil("received") { receiver.saw { $0 == .received(request.id) } })
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: partial))) == content)
        #expect(receiver.service.counters.bytesReceived == 600_000, "only the missing bytes travel")
        #expect(sender.service.counters.bytesSent == 600_000)
        sender.service.stop()
        receiver.service.stop()
    }

    /// Killed between the last byte and the rename: the whole partial file
    /// is verified again and kept, even with the sender gone.
    @Test func aWholePartialFileNeedsNoLink() async throws {
        let scratch = try ScratchDirectory()
        let sender = try Side(seed: 1), receiver = try Side(seed: 2)
        let content = Self.randomBytes(200_000, seed: 8)
        let partial = try scratch.file("part", bytes: content)
        let request = try Self.offer(try scratch.file("source.bin", bytes: content), from: sender, to: receiver, partial: partial)
        sender.service.stop()
        receiver.service.fetch(request)
        try #require(await waitUntil("received") { receiver.saw { $0 == .received(request.id) } })
        #expect(receiver.service.counters.bytesReceived == 0)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: partial))) == content)
        receiver.service.stop()
    }

    /// The link is cut mid-way; dialling again carries on where it stopped,
    /// and no byte travels twice.
    @Test func aCutLinkResumesWhereItStopped() async throws {
        let scratch = try ScratchDirectory()
        let sender = try Side(seed: 1, recordPause: .milliseconds(5)), receiver = try Side(seed: 2)
        let content = Self.randomBytes(64 * FileTransferLimits.chunkBytes, seed: 3)
        let request = try Self.offer(try scratch.file("source.bin", bytes: content), from: sender, to: receiver,
                                     partial: scratch.path + "/part")
        receiver.service.fetch(request)
        try #require(await waitUntil("some bytes arrived") { receiver.service.counters.bytesReceived > 0 })
        sender.service.interrupt(request.id)  // the sender's side of the link goes down
        try #require(await waitUntil("interrupted") { receiver.saw { if case .interrupted(request.id, _) = $0 { true } else { false } } })
        let before = receiver.service.counters.bytesReceived
        #expect(before < Int64(content.count))
        receiver.service.fetch(request)
        try #require(await waitUntil("received") { receiver.saw { $0 == .received(request.id) } })
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: request.partialPath))) == content)
        #expect(receiver.service.counters.bytesReceived == Int64(content.count))
        #expect(receiver.service.counters.linksDialled == 2)
        sender.service.stop()
        receiver.service.stop()
    }

    /// Offering the same file again takes the digest already made; a file
    /// rewritten to the same size with its old modification time back is
    /// hashed anew (the change time moved).
    @Test func aFileIsHashedOncePerVersion() throws {
        let scratch = try ScratchDirectory()
        let sender = try Side(seed: 1)
        defer { sender.service.stop() }
        let path = try scratch.file("same.bin", bytes: Self.randomBytes(100_000, seed: 5))
        let first = try sender.service.inspect(path: path)
        #expect(try sender.service.inspect(path: path) == first)
        #expect(sender.service.counters.filesHashed == 1 && sender.service.counters.digestsReused == 1)
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        try Data(Self.randomBytes(100_000, seed: 6)).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: try #require(modified)], ofItemAtPath: path)
        let second = try sender.service.inspect(path: path)
        #expect(second.size == first.size && second.sha256 != first.sha256)
        #expect(sender.service.counters.filesHashed == 2)
    }

    @Test func aFileChangedOnTheSendersDiskFailsOnBothSides() async throws {
        let scratch = try ScratchDirectory()
        let sender = try Side(seed: 1), receiver = try Side(seed: 2)
        let source = try scratch.file("source.bin", bytes: Self.randomBytes(100_000, seed: 4))
        let request = try Self.offer(source, from: sender, to: receiver, partial: scratch.path + "/part")
        // Same size, other bytes, a later modification time.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        try handle.write(contentsOf: Data([0xFF]))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: source)
        receiver.service.fetch(request)
        // Each side reports on its own thread: wait for both.
        try #require(await waitUntil("failed") { receiver.failure(request.id) != nil && sender.failure(request.id) != nil })
        #expect(receiver.failure(request.id)?.contains("changed on the sender's disk") == true)
        #expect(sender.failure(request.id)?.contains("changed on the sender's disk") == true)
        #expect(!receiver.saw { $0 == .received(request.id) })
        sender.service.stop()
        receiver.service.stop()
    }

    @Test func aHashMismatchFailsOnBothSides() async throws {
        let scratch = try ScratchDirectory()
        let sender = try Side(seed: 1), receiver = try Side(seed: 2)
        let request = try Self.offer(try scratch.file("source.bin", bytes: Self.randomBytes(70_000, seed: 5)), from: sender,
                                     to: receiver, partial: scratch.path + "/part", sha: String(repeating: "0", count: 64))
        receiver.service.fetch(request)
        try #require(await waitUntil("failed") { receiver.failure(request.id) != nil })
        #expect(receiver.failure(request.id)?.contains("SHA-256 does not match") == true)
        #expect(await waitUntil("sender failed") { sender.failure(request.id)?.contains("SHA-256 mismatch") == true })
        #expect(!receiver.saw { $0 == .received(request.id) })
        sender.service.stop()
        receiver.service.stop()
    }

    /// A peer asking for a file not offered to its key gets nothing; a
    /// sender that proves another key than the offer's is not believed.
    @Test func onlyTheOfferedKeyIsServedAndOnlyTheOfferingKeyIsBelieved() async throws {
        let scratch = try ScratchDirectory()
        let sender = try Side(seed: 1), receiver = try Side(seed: 2), stranger = try Side(seed: 3)
        let request = try Self.offer(try scratch.file("source.bin", bytes: [1, 2, 3]), from: sender, to: receiver,
                                     partial: scratch.path + "/part")
        var stolen = request
        stolen.peerKey = sender.base64
        stolen.partialPath = scratch.path + "/stolen"
        stranger.service.fetch(stolen)
        try #require(await waitUntil("refused") { stranger.failure(request.id) != nil })
        #expect(stranger.failure(request.id)?.contains("no such offer") == true)
        #expect(stranger.service.counters.bytesReceived == 0)
        #expect(sender.service.counters.refused == 1)
        #expect(sender.service.counters.bytesSent == 0)

        var impostor = request
        impostor.peerKey = stranger.base64  // the receiver believes the offer came from the stranger
        receiver.service.fetch(impostor)
        try #require(await waitUntil("refused") { receiver.failure(request.id) != nil })
        #expect(receiver.failure(request.id)?.contains("not the key of the peer that offered") == true)
        #expect(receiver.service.counters.bytesReceived == 0)
        for side in [sender, receiver, stranger] { side.service.stop() }
    }

    /// A rogue sender that pushes bytes past the offer's size, or out of
    /// place, is cut off: the receiver never writes past what it accepted.
    @Test(arguments: [true, false])
    func bytesNobodyAcceptedAreRefused(pastTheEnd: Bool) async throws {
        let scratch = try ScratchDirectory()
        let receiver = try Side(seed: 2)
        let rogueKey = TestNetwork.key(7)
        let listener = try Socket.makeTCPListener(port: 0)
        let port = try Socket.localEndpoint(listener).port
        let credential = try HandshakeIdentity.Credential(identity: rogueKey)
        Thread {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) > 0, let accepted = try? Socket.accept(listener),
                  let connection = try? FileLinkConnection(accepted: accepted.fd, timeoutSeconds: 5) else { return }
            defer { close(listener) }
            do {
                var handshake = try FileLinkHandshake(role: .responder, credential: credential, groupSecret: nil)
                try connection.writeFrame(try handshake.answer(try connection.readFrame()))
                _ = try handshake.accept(try connection.readFrame())
                connection.cipher = handshake.transport
                try connection.writeRecord(.start(offset: 0, size: 10))
                if pastTheEnd {
                    try connection.writeRecord(.data(offset: 0, bytes: [UInt8](repeating: 0xAA, count: 10)))
                    try connection.writeRecord(.data(offset: 10, bytes: [UInt8](repeating: 0xBB, count: 1000)))
                } else {
                    try connection.writeRecord(.data(offset: 5, bytes: [UInt8](repeating: 0xCC, count: 5)))
                }
                _ = try? connection.readRecord()
            } catch {}
        }.start()
        let request = FetchRequest(id: Self.newID(), peerKey: Data(rogueKey.publicKey.rawValue).base64EncodedString(), host: "127.0.0.1",
                                   port: port, partialPath: scratch.path + "/part", size: 10, sha256: String(repeating: "0", count: 64))
        receiver.service.fetch(request)
        try #require(await waitUntil("refused") { receiver.failure(request.id) != nil })
        #expect(receiver.failure(request.id)?.contains("out of place") == true)
        let written = (try? Data(contentsOf: URL(fileURLWithPath: request.partialPath)))?.count ?? 0
        #expect(written == (pastTheEnd ? 10 : 0))
        receiver.service.stop()
    }

    /// A TCP connection to the listener from `source` (a loopback address),
    /// that says nothing: it holds a handshake slot until it times out.
    static func silentConnection(to port: Int, from source: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(bound == 0)
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(connected == 0)
        return fd
    }

    /// One address holds at most 2 of the 8 handshake slots: its third
    /// connection is closed at once, another address still gets in.
    @Test func oneAddressCannotHoldEveryHandshakeSlot() async throws {
        let sender = try Side(seed: 1)
        defer { sender.service.stop() }
        let port = sender.service.port
        var open: [Int32] = []
        defer { for fd in open { close(fd) } }
        for _ in 0..<FileTransferService.maxHandshakingPerAddress { open.append(try Self.silentConnection(to: port, from: "127.0.0.1")) }
        try #require(await waitUntil("slots taken") { sender.service.state.withLock { $0.handshaking } == 2 })
        open.append(try Self.silentConnection(to: port, from: "127.0.0.1"))
        try #require(await waitUntil("the third refused") { sender.service.counters.handshakesRefused == 1 })
        open.append(try Self.silentConnection(to: port, from: "127.0.0.2"))
        try #require(await waitUntil("another address admitted") { sender.service.state.withLock { $0.handshaking } == 3 })
        #expect(sender.service.counters.handshakesRefused == 1)
        #expect(sender.service.diagnostics()["fileHandshakesRefused"] == 1)
    }
}
