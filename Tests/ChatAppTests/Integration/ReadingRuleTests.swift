import ChatCore
import ChatNode
import ChatStore
import Foundation
@testable import ChatApp
import Synchronization
import Testing
import TestSupport

/// "Reading is what the eye saw", on real nodes and stores: the console
/// opens a room at its read marker, moves the marker only across what it
/// printed, and `/unread`, `/read` and the store agree. Each test replays a
/// scenario from issue #15 with its numbers.
@Suite(.realTime) struct ReadingRuleTests {
    typealias Peer = CommandExecutorTests.Peer

    /// A console session whose output is collected.
    /// Lines a capturing screen wrote.
    final class Sink: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
        func clear() { lines.withLock { $0.removeAll() } }
    }

    struct Console {
        let session: InteractiveSession
        let sink: Sink

        var lines: [String] { sink.all }
        func clear() { sink.clear() }

        /// Types `line` and returns what it printed.
        func type(_ line: String) async -> [String] {
            clear()
            _ = await session.handle(line: line)
            return lines
        }
    }

    static func console(_ peer: Peer) -> Console {
        let sink = Sink()
        let screen = ConsoleScreen.capturing { line in sink.append(line) }
        let session = InteractiveSession(node: peer.node, screen: screen, renderer: ConsoleRenderer(useColor: false, timeZone: TimeZone(identifier: "UTC")!),
                                         locale: Locale(identifier: "en_US"))
        return Console(session: session, sink: sink)
    }

    static func message(_ log: EventLog<NodeEvent>, _ text: String) async throws -> Message {
        try await log.first(text) { if case .message(let m) = $0, m.content == text { m } else { nil } }
    }

    static func storedUnread(_ node: ChatNode, _ room: RoomID) async throws -> Int {
        try await node.roomList().first { $0.room == room }?.unreadCount ?? 0
    }

    static func inMemoryUnread(_ node: ChatNode, _ room: RoomID) async -> Int {
        await node.rooms().first { $0.room == room }?.unread ?? 0
    }

    /// 15 read, then 58 missed public messages: the console starts at the
    /// unread line, the marker follows only what was printed, and
    /// `/unread`, `/read` and the store say the same numbers throughout.
    @Test func missedPublicMessagesAreShownFromTheMarkerAndCountedAlike() async throws {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 1, network)
        let bob = try await CommandExecutorTests.peer("bob", 2, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        for n in 1...73 { try await bob.node.sendPublic("p\(n)") }
        try #require(await waitUntil("73 stored") { try await Self.storedUnread(alice.node, .publicRoom) == 73 })
        try await alice.node.markRead(.publicRoom, upTo: try await Self.message(alice.log, "p15").cursor)
        #expect(try await Self.storedUnread(alice.node, .publicRoom) == 58)
        #expect(await Self.inMemoryUnread(alice.node, .publicRoom) == 58)

        let console = Self.console(alice)
        await console.session.started(port: 4242)
        let start = console.lines
        #expect(start.contains { $0.contains("unread: #public 58") }, "the summary counts before anything is shown")
        let unreadLine = try #require(start.firstIndex { $0.contains("── unread ──") })
        #expect(start[unreadLine - 1].hasSuffix("bob: p15"))
        #expect(start[unreadLine + 1].hasSuffix("bob: p16"), "the first missed message is shown, right after the line")
        #expect(start.contains { $0.hasSuffix("bob: p30") } && !start.contains { $0.hasSuffix("bob: p31") })

        // Shown: p1...p30 of which p16...p30 were unread. 43 left, everywhere.
        #expect(await console.type("/unread").contains { $0.contains("#public (43 unread)") })
        #expect(try await Self.storedUnread(alice.node, .publicRoom) == 43)
        #expect(await Self.inMemoryUnread(alice.node, .publicRoom) == 43)
        #expect(await console.type("/read").contains { $0.contains("#public: 43 unread after the marker") })
        #expect(await console.type("/unread").contains { $0.contains("#public (43 unread)") })

        // Writing does not skip what was never shown.
        _ = await console.type("a reply")
        #expect(try await Self.storedUnread(alice.node, .publicRoom) == 43)

        let next = await console.type("/more down")
        #expect(next.contains { $0.hasSuffix("bob: p31") } && next.contains { $0.hasSuffix("bob: p60") })
        #expect(await console.type("/unread").contains { $0.contains("#public (13 unread)") })
        let last = await console.type("/more down")
        #expect(last.contains { $0.hasSuffix("bob: p73") } && last.contains { $0.hasSuffix("alice: a reply") })
        #expect(await console.type("/unread").contains { $0.contains("nothing unread") })
        #expect(try await Self.storedUnread(alice.node, .publicRoom) == 0)
        #expect(await Self.inMemoryUnread(alice.node, .publicRoom) == 0)
        #expect(await console.type("/more down").contains { $0.contains("this is the newest message") })
    }

    /// 40 unread DMs: `/history bob` starts at the first of them, not the
    /// newest 30, and never switches the room plain text goes to.
    @Test func historyOfADMStartsAtTheFirstUnreadAndKeepsTheRoom() async throws {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 1, network)
        let bob = try await CommandExecutorTests.peer("bob", 2, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        try await bob.node.sendDirect("d1", to: alice.number)
        try await alice.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        try await alice.node.accept("bob")
        try await bob.log.first("accepted") { if case .dmState(_, _, .accepted) = $0 { true } else { nil } }
        for n in 2...40 { try await bob.node.sendDirect("d\(n)", to: alice.number) }
        try #require(await waitUntil("40 stored") { try await Self.storedUnread(alice.node, .direct(bob.number)) == 40 })

        let console = Self.console(alice)
        await console.session.started(port: 4242)
        #expect(console.lines.contains { $0.contains("unread: @bob 40") })
        let page = await console.type("/history bob")
        let unreadLine = try #require(page.firstIndex { $0.contains("── unread ──") })
        #expect(page[unreadLine + 1].hasSuffix("bob: d1"), "the oldest unread first, none skipped")
        #expect(page.contains { $0.hasSuffix("bob: d30") } && !page.contains { $0.hasSuffix("bob: d31") })
        #expect(await console.type("/unread").contains { $0.contains("@bob (10 unread)") })

        // The next plain line still goes to the public room.
        let said = await console.type("still public")
        #expect(said.contains { $0.contains("#public alice: still public") })
        #expect(await alice.node.recentMessages(in: .publicRoom).contains { $0.content == "still public" })
        #expect(await alice.node.recentMessages(in: .direct(bob.number)).allSatisfy { $0.content != "still public" })
        // `/more down` pages the DM being read.
        let rest = await console.type("/more down")
        #expect(rest.contains { $0.hasSuffix("bob: d40") })
        #expect(await console.type("/unread").contains { $0.contains("nothing unread") })
    }

    /// A live message in a room with unread messages the reader has not
    /// seen is printed, but does not move the marker over them.
    @Test func aLiveMessageDoesNotSkipAnUnseenGap() async throws {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 1, network)
        let bob = try await CommandExecutorTests.peer("bob", 2, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        let console = Self.console(alice)
        await console.session.started(port: 4242)
        _ = await console.type("/open bob")  // not a room yet: an error, nothing changes
        try await bob.node.sendDirect("unseen", to: alice.number)
        try await alice.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        // The console never saw the request (its events were not fed): it is unread.
        try await bob.node.sendPublic("live")
        let live = try await Self.message(alice.log, "live")
        await console.session.handle(.message(live))
        #expect(console.lines.contains { $0.hasSuffix("bob: live") })
        #expect(try await Self.storedUnread(alice.node, .publicRoom) == 0, "shown right after what was read")
        #expect(try await Self.storedUnread(alice.node, .direct(bob.number)) == 1, "the DM was never shown")
    }
}
