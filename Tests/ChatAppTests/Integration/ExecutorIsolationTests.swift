import ChatCore
import ChatNode
import Foundation
@testable import ChatApp
import Synchronization
import Testing
import TestSupport

/// The executor is an actor that never writes back state it read before an
/// `await`: a live message placed while a command waits for the store stays
/// counted (the sessions once copied the executor, awaited, and wrote the
/// stale copy back over it).
@Suite(.realTime) struct ExecutorIsolationTests {
    final class Placement: Sendable {
        private let stored = Mutex<HistoryWindow.LivePlacement?>(nil)
        func set(_ value: HistoryWindow.LivePlacement?) { stored.withLock { $0 = value } }
        var value: HistoryWindow.LivePlacement? { stored.withLock { $0 } }
    }

    @Test func aMessagePlacedWhileAPageLoadsIsKept() async throws {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 1, network)
        let bob = try await CommandExecutorTests.peer("bob", 2, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        for n in 1...40 { try await bob.node.sendPublic("m\(n)") }
        try #require(await waitUntil("40 stored") { await alice.node.recentMessages(in: .publicRoom).count == 40 })
        try await alice.node.markRead(.publicRoom, upTo: try #require(await alice.node.recentMessages(in: .publicRoom).last).cursor)

        let executor = CommandExecutor(node: alice.node)
        _ = try await executor.run(.history(nil))  // the newest 30, following
        let window = try #require(await executor.window)
        #expect(window.count == 30 && window.isFollowing)

        // `/more up` fetched its page; before it is recorded a live message
        // arrives and is placed. Recording the page must keep it.
        try await bob.node.sendPublic("live")
        let live = try await alice.log.first("live") { if case .message(let m) = $0, m.content == "live" { m } else { nil } }
        let placement = Placement()
        await executor.setAfterPageFetch { placement.set(await executor.place(live)) }
        _ = try await executor.run(.more(older: true))
        #expect(placement.value == .appendAndFollow)
        let after = try #require(await executor.window)
        #expect(after.count == 41, "30 + the live one + 10 older")
        #expect(after.newest == live.cursor)
        #expect(after.hasMoreBefore == false)
    }

    @Test func concurrentCommandsAndPlacementsLoseNothing() async throws {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 1, network)
        let bob = try await CommandExecutorTests.peer("bob", 2, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        for n in 1...300 { try await bob.node.sendPublic("m\(n)") }
        try #require(await waitUntil("300 stored") { try await alice.node.roomList().first?.messageCount == 300 })
        try await alice.node.markRead(.publicRoom, upTo: try #require(await alice.node.recentMessages(in: .publicRoom).last).cursor)
        let executor = CommandExecutor(node: alice.node)
        _ = try await executor.run(.history(nil))
        var lives: [Message] = []
        for n in 1...50 {
            try await bob.node.sendPublic("live \(n)")
            lives.append(try await alice.log.first("live \(n)") { if case .message(let m) = $0, m.content == "live \(n)" { m } else { nil } })
        }
        // Placements interleave with commands that await the node.
        await withTaskGroup(of: Void.self) { group in
            for live in lives {
                group.addTask { _ = await executor.place(live) }
                group.addTask { _ = try? await executor.run(.more(older: true)) }
                group.addTask { _ = try? await executor.run(.peers) }
            }
        }
        let window = try #require(await executor.window)
        // Racing `/more up`s may fetch the same page (recorded once), so how
        // far up the window reaches varies; its count must match its range.
        let oldest = try #require(window.oldest)
        let earlier = alice.log.events.filter { if case .message(let m) = $0, m.content.hasPrefix("m"), m.cursor < oldest { true } else { false } }.count
        #expect(window.count == 350 - earlier, "every message from the window's oldest on, the 50 live ones included")
        #expect(window.count >= 30 + 30 + 50, "at least one awaited page")
        #expect(window.newest == lives.map(\.cursor).max())
    }
}
