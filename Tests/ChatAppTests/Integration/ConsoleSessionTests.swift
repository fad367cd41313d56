import ChatCore
import ChatNode
import Foundation
@testable import ChatApp
import Testing
import TestSupport

/// The line console's defects from issue #15, each as a user meets it.
@Suite(.realTime) struct ConsoleSessionTests {
    typealias R = ReadingRuleTests

    static func linkedPair() async throws -> (alice: CommandExecutorTests.Peer, bob: CommandExecutorTests.Peer, console: R.Console) {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 0x1_2345_DEF0, network)
        let bob = try await CommandExecutorTests.peer("bob", 0x9_8765_4321, network, stage: "ios")
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        let console = R.console(alice)
        await console.session.started(port: 4242)
        return (alice, bob, console)
    }

    @Test func startSaysWhoYouAreWhoIsHereAndWhereHelpIs() async throws {
        let (_, _, console) = try await Self.linkedPair()
        let start = console.lines
        #expect(start.first == "-- you are alice#def0, linking on TCP port 4242")
        #expect(start.contains("-- 1 peer linked; nothing unread"))
        #expect(start.last?.contains("/help") == true)
    }

    @Test func honestEmptyStates() async throws {
        let (_, _, console) = try await Self.linkedPair()
        #expect(await console.type("/more up").contains("-- this is the beginning of the conversation"))
        _ = await console.type("/filter xyz")
        #expect(await console.type("/peers") == ["-- no peers match filter xyz (1 linked; /filter all shows them)"])
        _ = await console.type("/filter stage:IOS")
        #expect(await console.type("/peers").first?.contains("bob") == true)
    }

    @Test func nicknamesWithSpacesAreRefused() async throws {
        let (alice, _, console) = try await Self.linkedPair()
        let reply = await console.type("/nick a b")
        #expect(reply.first?.hasPrefix("! a nickname cannot contain spaces") == true)
        #expect(await alice.node.identity.nickname == "alice")
        #expect(await console.type("/nick a_b").isEmpty)
        #expect(await alice.node.identity.nickname == "a_b")
    }

    @Test func ownMessagesShowLikeEveryonesWithDeliveryState() async throws {
        let (alice, bob, console) = try await Self.linkedPair()
        let said = await console.type("hello all")
        #expect(said.count == 1 && said[0].hasSuffix("#public alice: hello all"))
        let dm = await console.type("/dm bob psst")
        #expect(dm.contains { $0.hasSuffix("@bob alice: psst  · sent") })
        #expect(await console.type("/dm bob again").contains("! waiting for bob to accept your DM request"), "named, not numbered")
        try await bob.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        try await bob.node.accept("alice")
        try await alice.log.first("accepted") { if case .dmState(_, _, .accepted) = $0 { true } else { nil } }
        // bob leaves: the next DM says it waits, and leave lines carry the tag.
        await bob.node.stop()
        try #require(await waitUntil("bob gone") { await alice.node.peers().isEmpty })
        await console.session.handle(.peerLeft(PeerInfo(number: bob.number, nickname: "bob", instanceId: "", address: ""), .left))
        #expect(console.lines.last == "-- bob#4321 left")
        let queued = await console.type("/dm bob are you there")
        #expect(queued.contains { $0.hasSuffix("@bob alice: are you there  · queued") })
        #expect(queued.contains("-- bob is offline; queued, sent when they are back"))
    }

    @Test func aDMRequestIsShownOnceAndErrorsNameNotNumber() async throws {
        let (alice, bob, console) = try await Self.linkedPair()
        try await bob.node.sendDirect("may I?", to: alice.number)
        let request = try await alice.log.first("request") { if case .dmRequest(let p, let m) = $0 { (p, m) } else { nil } }
        console.clear()
        await console.session.handle(.dmRequest(request.0, message: request.1))
        await console.session.handle(.message(request.1))
        #expect(console.lines.count == 1)
        #expect(console.lines.first?.contains("bob wants to DM you: \"may I?\"") == true)

        // Answering twice: the error names bob, not his number.
        try await alice.node.decline("bob")
        let again = await console.type("/accept bob")
        #expect(!again.joined().contains(String(bob.number.rawValue)), "no 16-digit numbers")
    }

    @Test func aNameBackOnAnotherNodeIsADifferentPeer() async throws {
        let (_, bob, console) = try await Self.linkedPair()
        await console.session.handle(.peerJoined(PeerInfo(number: bob.number, nickname: "bob", instanceId: "", address: "127.0.0.1:1")))
        #expect(console.lines.last == "-- bob#4321 joined (127.0.0.1:1, 1 linked)")
        let other = NodeNumber(rawValue: 0xAAAA)!
        await console.session.handle(.peerJoined(PeerInfo(number: other, nickname: "ＢＯＢ", instanceId: "", address: "127.0.0.1:2")))
        #expect(console.lines.last?.contains("a different ＢＯＢ (the one before was #4321)") == true)
    }

    @Test func historyOfAnotherRoomKeepsThePrompt() async throws {
        let (_, bob, console) = try await Self.linkedPair()
        try await bob.node.sendPublic("x")
        _ = await console.type("/history public")
        _ = await console.type("plain")
        #expect(console.lines.contains { $0.hasSuffix("#public alice: plain") })
        _ = await console.type("/open bob")
        _ = await console.type("now a dm")
        #expect(console.lines.contains { $0.contains("@bob alice: now a dm") })
    }
}
