import ChatCore
import ChatNode
import ChatStore
import Foundation
import ChatApp
import Testing
import TestSupport

/// The history commands the console and `--json` share, on an in-memory
/// network: paging around the read marker, marking read, and where a live
/// message goes while the reader is scrolled back.
@Suite(.realTime) struct CommandExecutorTests {
    struct Peer {
        let node: ChatNode
        let log: EventLog<NodeEvent>
        let number: NodeNumber
    }

    static func peer(_ nickname: String, _ number: UInt64, _ network: InMemoryNetwork, stage: String? = nil) async throws -> Peer {
        let identity = NodeIdentity(number: NodeNumber(rawValue: number)!, nickname: nickname, stage: stage)
        let node = ChatNode(identity: identity, transport: network.transport(for: identity),
                            store: try ChatStore(path: nil, localNumber: identity.number))
        let log = EventLog(node.events)
        try await node.start()
        return Peer(node: node, log: log, number: identity.number)
    }

    static func texts(_ result: CommandResult) -> [String] {
        guard case .history(let page, _) = result else { return [] }
        return page.messages.map(\.content)
    }

    @Test func historyPagesAroundTheReadMarkerAndLiveMessagesKeepOrder() async throws {
        let network = InMemoryNetwork()
        let alice = try await Self.peer("alice", 1, network)
        let bob = try await Self.peer("bob", 2, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        for n in 1...70 { try await bob.node.sendPublic("m\(n)") }
        try await alice.log.first("m70") { if case .message(let m) = $0, m.content == "m70" { true } else { nil } }

        let executor = CommandExecutor(node: alice.node)
        // Nothing read yet: the room opens on its oldest messages.
        let first = try await executor.run(.history("public"))
        #expect(Self.texts(first) == (1...30).map { "m\($0)" })
        #expect(await executor.window?.hasMoreAfter == true)
        // Newer pages are not loaded: a live message must not be appended.
        try await bob.node.sendPublic("live 1")
        let live1 = try await alice.log.first("live 1") { if case .message(let m) = $0, m.content == "live 1" { m } else { nil } }
        #expect(await executor.place(live1) == .storeAndAnnounce)

        #expect(try await executor.run(.read).isRead(unread: 41))
        _ = try await executor.run(.more(older: false))
        let last = try await executor.run(.more(older: false))
        #expect(Self.texts(last) == (61...70).map { "m\($0)" } + ["live 1"])
        // At the newest page now: live messages follow.
        try await bob.node.sendPublic("live 2")
        let live2 = try await alice.log.first("live 2") { if case .message(let m) = $0, m.content == "live 2" { m } else { nil } }
        #expect(await executor.place(live2) == .appendAndFollow)
        // Scrolled back with the newest page loaded: appended and announced.
        _ = try await executor.run(.more(older: true))  // nothing older is unloaded: the reader is at the top
        #expect(await executor.window?.isFollowing == false)
        try await bob.node.sendPublic("live 3")
        let live3 = try await alice.log.first("live 3") { if case .message(let m) = $0, m.content == "live 3" { m } else { nil } }
        #expect(await executor.place(live3) == .appendAndAnnounce)

        #expect(try await executor.run(.read).isRead(unread: 0))
        // Reopened later, the room centres on the marker: nothing unread, so
        // the newest page.
        let again = CommandExecutor(node: alice.node)
        let reopened = try await again.run(.history("public"))
        #expect(Self.texts(reopened).last == "live 3")
        #expect(Self.texts(reopened).count == 30)
    }

    @Test func filterAppliesToPeersAndPublicHistory() async throws {
        let network = InMemoryNetwork()
        let alice = try await Self.peer("alice", 1, network)
        let bob = try await Self.peer("bob", 2, network, stage: "ios")
        let carol = try await Self.peer("carol", 3, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 2 })
        try await bob.node.sendPublic("from ios")
        try await carol.node.sendPublic("from nowhere")
        try await alice.log.until("both") { events in
            events.filter { if case .message = $0 { true } else { false } }.count == 2
        }
        let executor = CommandExecutor(node: alice.node)
        guard case .filter(let filter) = try await executor.run(.filter("iOS ")), filter.matches(stage: "ios"), !filter.matches(stage: nil) else {
            Issue.record("filter not set")
            return
        }
        guard case .peers(let ios) = try await executor.run(.peers) else { return }
        #expect(ios.map(\.info.nickname) == ["bob"])
        #expect(Self.texts(try await executor.run(.history("public"))) == ["from ios"])
        _ = try await executor.run(.filter("none"))
        guard case .peers(let none) = try await executor.run(.peers) else { return }
        #expect(none.map(\.info.nickname) == ["carol"])
        #expect(Self.texts(try await executor.run(.history("public"))) == ["from nowhere"])
        _ = try await executor.run(.filter("all"))
        #expect(Set(Self.texts(try await executor.run(.history("public")))) == ["from ios", "from nowhere"])
    }

    @Test func roomsAreGroupedByDateFromTheStore() async throws {
        let network = InMemoryNetwork()
        let alice = try await Self.peer("alice", 1, network)
        let bob = try await Self.peer("bob", 2, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        try await bob.node.sendDirect("hi alice", to: alice.number)
        try await alice.log.first("dm") { if case .dmRequest = $0 { true } else { nil } }
        try await bob.node.sendPublic("hi all")
        try await alice.log.first("public") { if case .message(let m) = $0, m.content == "hi all" { true } else { nil } }
        let executor = CommandExecutor(node: alice.node, locale: Locale(identifier: "ko_KR"))
        guard case .roomGroups(let groups) = try await executor.run(.rooms) else { Issue.record("no groups"); return }
        #expect(groups.map(\.title) == ["오늘"])
        #expect(Set(groups[0].items.map(\.room)) == [.publicRoom, .direct(bob.number)])
    }
}

extension CommandResult {
    func isRead(unread: Int) -> Bool {
        if case .read(_, let count) = self { return count == unread }
        return false
    }
}
