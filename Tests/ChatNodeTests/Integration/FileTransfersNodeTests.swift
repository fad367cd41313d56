import ChatCore
import ChatNode
import ChatStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// The node's side of file transfers on an in-memory network, with the
/// transfer links faked: offers, answers, caps, DM rules, the rename that
/// never overwrites, cancel, and resuming what the store kept.
@Suite(.realTime) struct FileTransfersNodeTests {
    /// Records what the node asks of its links; the test plays their events.
    final class FakeLinks: FileLinkPort, Sendable {
        let linkEvents: AsyncStream<FileLinkEvent>
        let continuation: AsyncStream<FileLinkEvent>.Continuation
        let fetches = Mutex<[FetchRequest]>([])
        let served = Mutex<[MessageID]>([])
        let unserved = Mutex<[MessageID]>([])
        let interrupted = Mutex<[MessageID]>([])
        var port: Int { 40_000 }

        init() { (linkEvents, continuation) = AsyncStream.makeStream(of: FileLinkEvent.self) }
        func start() throws -> Int { port }
        func stop() { continuation.finish() }
        func inspect(path: String) throws -> FileFacts {
            FileFacts(size: 5, modified: 1, sha256: String(repeating: "ab", count: 32))
        }
        func serve(_ file: ServedFile) { served.withLock { $0.append(file.id) } }
        func unserve(_ id: MessageID) { unserved.withLock { $0.append(id) } }
        /// Transfers whose previous link is still running: a fetch is refused.
        let running = Mutex<Set<MessageID>>([])
        let refusedFetches = Mutex(0)
        func fetch(_ request: FetchRequest) -> Bool {
            guard !running.withLock({ $0.contains(request.id) }) else {
                refusedFetches.withLock { $0 += 1 }
                return false
            }
            fetches.withLock { $0.append(request) }
            return true
        }
        func interrupt(_ id: MessageID) { interrupted.withLock { $0.append(id) } }
    }

    struct Peer {
        let node: ChatNode
        let files: FileTransfers
        let links: FakeLinks
        let log: EventLog<NodeEvent>
        let transport: InMemoryTransport
        let store: ChatStore
        let downloads: String

        static func start(_ nickname: String, number: UInt64, on network: InMemoryNetwork, downloads: String,
                          store: ChatStore? = nil) async throws -> Peer {
            let identity = NodeIdentity(number: NodeNumber(rawValue: number)!, nickname: nickname)
            let transport = network.transport(for: identity, identityKey: Data("key of \(nickname)".utf8).base64EncodedString())
            let store = try store ?? ChatStore(path: nil, localNumber: identity.number)
            let node = ChatNode(identity: identity, transport: transport, store: store)
            let links = FakeLinks()
            let files = FileTransfers(localNumber: identity.number, links: links, transport: transport, store: store, events: node.events,
                                      downloadDirectory: downloads, identity: { [node] in await node.identity })
            await node.attach(files: files)
            try await files.start()
            let log = EventLog(node.events)
            try await node.start()
            return Peer(node: node, files: files, links: links, log: log, transport: transport, store: store, downloads: downloads)
        }

        func fileEvent<T>(_ what: String, _ match: (FileTransferEvent) -> T?) async throws -> T {
            try await log.first(what) { if case .file(let event) = $0 { match(event) } else { nil } }
        }

        var number: NodeNumber { node.number }
    }

    static func pair(_ scratch: ScratchDirectory) async throws -> (InMemoryNetwork, Peer, Peer) {
        let (network, alice, bob) = try await linked(scratch)
        try await Self.converse(alice, bob)
        return (network, alice, bob)
    }

    /// Alice and bob linked, with no DM conversation yet.
    static func linked(_ scratch: ScratchDirectory) async throws -> (InMemoryNetwork, Peer, Peer) {
        let network = InMemoryNetwork()
        let alice = try await Peer.start("alice", number: 1, on: network, downloads: scratch.path + "/alice")
        let bob = try await Peer.start("bob", number: 2, on: network, downloads: scratch.path + "/bob")
        try #require(await waitUntil("linked") {
            let linked = await alice.node.peers().count
            return await linked + bob.node.peers().count == 2
        })
        return (network, alice, bob)
    }

    /// An accepted DM conversation between the two (offers need one).
    static func converse(_ one: Peer, _ other: Peer) async throws {
        try await one.node.sendDirect("hi", to: other.number)
        try #require(await waitUntil("request") { await other.node.rooms().contains { $0.room == .direct(one.number) } })
        try await other.node.accept(await one.node.identity.nickname)
        try #require(await waitUntil("accepted") {
            await one.node.rooms().contains { $0.room == .direct(other.number) && $0.dmState == .accepted }
        })
    }

    static func offer(_ sender: Peer, to receiver: Peer) async throws -> FileTransfer {
        let peer = try #require(await sender.node.peers().first { $0.number == receiver.number })
        let sent = try await sender.files.send(path: "/nowhere/report.pdf", to: peer)
        _ = try await receiver.fileEvent("offer") { if case .offer(let t) = $0, t.id == sent.id { t } else { nil } }
        return sent
    }

    @Test func anOfferWritesNothingAndADeclineReachesTheSender() async throws {
        let scratch = try ScratchDirectory()
        let (_, alice, bob) = try await Self.pair(scratch)
        let sent = try await Self.offer(alice, to: bob)
        #expect(alice.links.served.withLock { $0 } == [sent.id])
        #expect(!FileManager.default.fileExists(atPath: bob.downloads))
        #expect(try await bob.store.fileTransfers().isEmpty, "an offer is not even stored before it is accepted")
        try await bob.files.decline(String(sent.id.description.suffix(8)))
        let declined = try await alice.fileEvent("declined") { if case .failed(let t) = $0 { t } else { nil } }
        #expect(declined.state == .declined && declined.reason?.contains("declined by bob") == true)
        #expect(alice.links.unserved.withLock { $0 } == [sent.id])
        #expect(bob.links.fetches.withLock { $0 }.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: bob.downloads))
    }

    @Test func acceptedFilesGetAFreeNameAndAreNeverOverwritten() async throws {
        let scratch = try ScratchDirectory()
        let (_, alice, bob) = try await Self.pair(scratch)
        try FileManager.default.createDirectory(atPath: bob.downloads, withIntermediateDirectories: true)
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: bob.downloads + "/report.pdf"))
        let sent = try await Self.offer(alice, to: bob)
        let accepted = try await bob.files.accept(sent.id.description)
        _ = try await alice.fileEvent("accepted") { if case .accepted(let t) = $0, t.id == sent.id { t } else { nil } }
        let fetch = try #require(bob.links.fetches.withLock { $0.first })
        #expect(fetch.id == sent.id && fetch.port == 40_000 && fetch.size == 5)
        #expect(fetch.partialPath == accepted.path && accepted.path.hasPrefix(bob.downloads + "/.report.pdf."))
        #expect(try await bob.store.fileTransfers().map(\.state) == [.accepted])
        try Data("hello".utf8).write(to: URL(fileURLWithPath: fetch.partialPath))
        bob.links.continuation.yield(.received(sent.id))
        let done = try await bob.fileEvent("done") { if case .done(let t) = $0 { t } else { nil } }
        #expect(done.path == bob.downloads + "/report (2).pdf")
        #expect(try String(contentsOfFile: bob.downloads + "/report.pdf", encoding: .utf8) == "someone else's")
        #expect(try String(contentsOfFile: done.path, encoding: .utf8) == "hello")
        #expect(!FileManager.default.fileExists(atPath: fetch.partialPath))
        #expect(try await bob.store.fileTransfers().map(\.state) == [.done])
    }

    /// Offers past the cap are declined unseen; so is every offer from a
    /// peer whose DMs were declined.
    @Test func offersPastTheCapAndFromDeclinedPeersAreDeclinedUnseen() async throws {
        let scratch = try ScratchDirectory()
        let (_, alice, bob) = try await Self.pair(scratch)
        for n in 0...FileTransferLimits.pendingOffersPerPeer {
            let offer = FileOffer(name: "f\(n)", size: 1, sha256: String(repeating: "0", count: 64), port: 1)
            var frame = P2PPayload(type: .fileOffer, messageId: MessageID(millis: 1_800_000_000_000 + Int64(n), random: (1, 1)),
                                   senderNumber: bob.number, senderNickname: "bob", content: offer.content,
                                   timestamp: 1_800_000_000_000, targetNumber: alice.number)
            frame.version = P2PPayload.protocolVersion
            _ = await bob.transport.send(frame, to: alice.number)
        }
        let tooMany = MessageID(millis: 1_800_000_000_000 + Int64(FileTransferLimits.pendingOffersPerPeer), random: (1, 1))
        try #require(await waitUntil("the 17th declined") { await alice.files.declinedUnseen == 1 })
        #expect(await alice.files.list().count == FileTransferLimits.pendingOffersPerPeer)
        #expect(await alice.files.transfer(tooMany) == nil)

        // A declined DM conversation: its peer's offers are declined too.
        try await alice.node.decline("bob")
        let before = await alice.files.list().count
        let offer = FileOffer(name: "late", size: 1, sha256: String(repeating: "0", count: 64), port: 1)
        let late = P2PPayload(type: .fileOffer, messageId: MessageID(millis: 1_800_000_001_000, random: (2, 2)), senderNumber: bob.number,
                              senderNickname: "bob", content: offer.content, timestamp: 1_800_000_000_000, targetNumber: alice.number)
        _ = await bob.transport.send(late, to: alice.number)
        try #require(await waitUntil("declined unseen") { await alice.files.declinedUnseen == 2 })
        #expect(await alice.node.transportDiagnostics()["fileOffersDeclinedUnseen"] == 2, "in /stats and JSON stats")
        #expect(await alice.files.list().count == before)
        #expect(await alice.files.transfer(late.messageId) == nil)
    }

    @Test func aCancelFromThePeerRemovesThePartialFile() async throws {
        let scratch = try ScratchDirectory()
        let (_, alice, bob) = try await Self.pair(scratch)
        let sent = try await Self.offer(alice, to: bob)
        let accepted = try await bob.files.accept(sent.id.description)
        try Data("hel".utf8).write(to: URL(fileURLWithPath: accepted.path))
        try await alice.files.cancel(sent.id.description)
        let cancelled = try await bob.fileEvent("cancelled") { if case .failed(let t) = $0 { t } else { nil } }
        #expect(cancelled.state == .cancelled && cancelled.reason?.contains("cancelled by alice") == true)
        #expect(!FileManager.default.fileExists(atPath: accepted.path))
        #expect(bob.links.interrupted.withLock { $0 }.contains(sent.id))
        #expect(try await bob.store.fileTransfers().map(\.state) == [.cancelled])
    }

    /// What the store kept resumes: the receiver dials again when the
    /// sender links up; the sender serves and repeats its offer.
    @Test func aRestartedNodeResumesWhatTheStoreKept() async throws {
        let scratch = try ScratchDirectory()
        let network = InMemoryNetwork()
        let aliceStore = try ChatStore(path: nil, localNumber: NodeNumber(rawValue: 1)!)
        let bobStore = try ChatStore(path: nil, localNumber: NodeNumber(rawValue: 2)!)
        var alice = try await Peer.start("alice", number: 1, on: network, downloads: scratch.path + "/alice", store: aliceStore)
        var bob = try await Peer.start("bob", number: 2, on: network, downloads: scratch.path + "/bob", store: bobStore)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        try await Self.converse(alice, bob)
        let sent = try await Self.offer(alice, to: bob)
        _ = try await bob.files.accept(sent.id.description)
        await alice.node.stop(); await alice.files.stop()
        await bob.node.stop(); await bob.files.stop()

        bob = try await Peer.start("bob", number: 2, on: network, downloads: scratch.path + "/bob", store: bobStore)
        alice = try await Peer.start("alice", number: 1, on: network, downloads: scratch.path + "/alice", store: aliceStore)
        #expect(alice.links.served.withLock { $0 } == [sent.id], "served again from the store")
        try #require(await waitUntil("dialled again") { bob.links.fetches.withLock { $0.contains { $0.id == sent.id } } })
        #expect(await bob.files.transfer(sent.id)?.state == .accepted)
    }

    /// A dial made while the transfer's previous link is still on its way
    /// down (a cut, the sender restarted) is refused by the links; the node
    /// tries it again instead of leaving the transfer waiting for ever.
    @Test func aDialRefusedWhileTheOldLinkEndsIsTriedAgain() async throws {
        let scratch = try ScratchDirectory()
        let (_, alice, bob) = try await Self.pair(scratch)
        let sent = try await Self.offer(alice, to: bob)
        bob.links.running.withLock { _ = $0.insert(sent.id) }
        _ = try await bob.files.accept(sent.id.description)
        try #require(await waitUntil("the dial refused") { bob.links.refusedFetches.withLock { $0 } >= 1 })
        #expect(bob.links.fetches.withLock { $0 }.isEmpty)
        bob.links.running.withLock { $0.removeAll() }
        try #require(await waitUntil("dialled again") { bob.links.fetches.withLock { $0.contains { $0.id == sent.id } } })
        #expect(await bob.files.transfer(sent.id)?.state == .accepted)
    }

    /// An offer from a peer with no accepted DM conversation is held with
    /// the request: unseen, not acceptable; accepting the request shows it.
    @Test func anOfferWithoutAConversationWaitsForTheDMRequest() async throws {
        let scratch = try ScratchDirectory()
        let (_, alice, bob) = try await Self.linked(scratch)
        let peer = try #require(await alice.node.peers().first)
        let sent = try await alice.files.send(path: "/nowhere/report.pdf", to: peer)
        try #require(await waitUntil("held") { await !bob.files.heldOffers(from: alice.number).isEmpty })
        #expect(await bob.files.list().isEmpty, "not listed")
        #expect(bob.log.events.allSatisfy { if case .file = $0 { false } else { true } }, "no offer event")
        // Named as the console shows it; the answer fits the status line.
        let shortID = String(sent.id.description.suffix(8))
        do {
            _ = try await bob.files.accept(shortID)
            Issue.record("a held offer was accepted")
        } catch {
            #expect(error.description.hasSuffix("#\(shortID) waits for alice's DM request: /accept alice first"))
        }
        #expect(bob.links.fetches.withLock { $0 }.isEmpty)

        try await alice.node.sendDirect("offers a file: report.pdf", to: bob.number)
        try #require(await waitUntil("request") { await bob.node.rooms().contains { $0.room == .direct(alice.number) } })
        #expect(await bob.files.list().isEmpty, "a request alone shows nothing")
        try await bob.node.accept("alice")
        let shown = try await bob.fileEvent("offer") { if case .offer(let t) = $0 { t } else { nil } }
        #expect(shown.id == sent.id && shown.state == .offered)
        #expect(await bob.files.heldOffers(from: alice.number).isEmpty)
        _ = try await bob.files.accept(sent.id.description)
        try #require(await waitUntil("fetching") { bob.links.fetches.withLock { !$0.isEmpty } })
    }

    /// Declining the DM request declines the offers held with it.
    @Test func decliningTheRequestDeclinesTheHeldOffers() async throws {
        let scratch = try ScratchDirectory()
        let (_, alice, bob) = try await Self.linked(scratch)
        let peer = try #require(await alice.node.peers().first)
        let sent = try await alice.files.send(path: "/nowhere/report.pdf", to: peer)
        try await alice.node.sendDirect("offers a file: report.pdf", to: bob.number)
        try #require(await waitUntil("request") { await bob.node.rooms().contains { $0.room == .direct(alice.number) } })
        try #require(await waitUntil("held") { await !bob.files.heldOffers(from: alice.number).isEmpty })
        try await bob.node.decline("alice")
        let declined = try await alice.fileEvent("declined") { if case .failed(let t) = $0, t.id == sent.id { t } else { nil } }
        #expect(declined.state == .declined)
        #expect(await bob.files.heldOffers(from: alice.number).isEmpty)
        #expect(await bob.files.list().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: bob.downloads))
    }

    /// The receiver finished while the sender was down: the sender's
    /// repeated offer is answered `fileDone`, and both show done.
    @Test func aRepeatedOfferOfAFinishedFileIsAnsweredDone() async throws {
        let scratch = try ScratchDirectory()
        let network = InMemoryNetwork()
        let aliceStore = try ChatStore(path: nil, localNumber: NodeNumber(rawValue: 1)!)
        var alice = try await Peer.start("alice", number: 1, on: network, downloads: scratch.path + "/alice", store: aliceStore)
        let bob = try await Peer.start("bob", number: 2, on: network, downloads: scratch.path + "/bob")
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        try await Self.converse(alice, bob)
        let sent = try await Self.offer(alice, to: bob)
        let accepted = try await bob.files.accept(sent.id.description)
        _ = try await alice.fileEvent("accepted") { if case .accepted(let t) = $0, t.id == sent.id { t } else { nil } }
        await alice.node.stop(); await alice.files.stop()
        // The last byte landed while alice was gone.
        try Data("hello".utf8).write(to: URL(fileURLWithPath: accepted.path))
        bob.links.continuation.yield(.received(sent.id))
        _ = try await bob.fileEvent("done") { if case .done(let t) = $0 { t } else { nil } }

        alice = try await Peer.start("alice", number: 1, on: network, downloads: scratch.path + "/alice", store: aliceStore)
        let done = try await alice.fileEvent("done") { if case .done(let t) = $0, t.id == sent.id { t } else { nil } }
        #expect(done.state == .done)
        #expect(try await aliceStore.fileTransfers().first { $0.id == sent.id }?.state == .done)
        #expect(alice.links.unserved.withLock { $0 }.contains(sent.id))
        #expect(await bob.files.transfer(sent.id)?.state == .done)
    }

    /// The receiver saved the file but its verdict never reached the sender
    /// (lost with the link): the sender's link ends `interrupted`, its
    /// repeated offer is answered `fileDone`, and both show done, with the
    /// chat link up all along.
    @Test func aLostVerdictIsRecoveredByRepeatingTheOffer() async throws {
        let scratch = try ScratchDirectory()
        let (_, alice, bob) = try await Self.pair(scratch)
        let sent = try await Self.offer(alice, to: bob)
        let accepted = try await bob.files.accept(sent.id.description)
        _ = try await alice.fileEvent("accepted") { if case .accepted(let t) = $0, t.id == sent.id { t } else { nil } }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: accepted.path))
        bob.links.continuation.yield(.received(sent.id))
        _ = try await bob.fileEvent("done") { if case .done(let t) = $0 { t } else { nil } }

        alice.links.continuation.yield(.interrupted(sent.id, reason: "no verdict within 30 s"))
        let done = try await alice.fileEvent("done") { if case .done(let t) = $0, t.id == sent.id { t } else { nil } }
        #expect(done.state == .done)
        #expect(alice.links.unserved.withLock { $0 }.contains(sent.id))
    }
}
