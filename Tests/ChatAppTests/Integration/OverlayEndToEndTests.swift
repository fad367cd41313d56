import Foundation
import Testing
import TestSupport

/// Real `lanchat` processes with the overlay forced on at small N
/// (`LANCHAT_OVERLAY_THRESHOLD`, test only): eight nodes gossip, every
/// public message reaches every node once, after one is killed with
/// SIGKILL the seven others still reach one another, and a latecomer
/// catches up on what it missed.
@Suite(.realTime) struct OverlayEndToEndTests {
    static func node(_ nickname: String, port: Int) throws -> NodeProcess {
        try NodeProcess(["--json", "--nick", nickname, "--broadcast", "127.255.255.255", "--discovery-port", "\(port)",
                         "--beacon-interval", "0.5", "--in-memory"], environment: ["LANCHAT_OVERLAY_THRESHOLD": "3"])
    }

    /// The node's transport counters (`stats`).
    static func transport(_ node: NodeProcess, _ id: String) async throws -> [String: Int] {
        node.send(json: ["cmd": "stats", "id": id])
        let stats = try await node.event("stats \(id)") { $0["re"] as? String == id }
        return stats["transport"] as? [String: Int] ?? [:]
    }

    static func count(_ node: NodeProcess, text: String) -> Int {
        node.jsonEvents.count { $0["event"] as? String == "message" && $0["text"] as? String == text }
    }

    /// Each node sends one message; each must show every one exactly once.
    static func round(_ name: String, _ nodes: [(String, NodeProcess)]) async throws {
        for (nickname, node) in nodes { node.send(json: ["cmd": "send", "text": "\(name) from \(nickname)"]) }
        for (_, node) in nodes {
            for (sender, _) in nodes {
                try await node.event("\(name) from \(sender)", within: .seconds(30)) { _ in count(node, text: "\(name) from \(sender)") >= 1 }
            }
        }
        // A marker after them: once it is in everywhere, a duplicate would be too.
        nodes[0].1.send(json: ["cmd": "send", "text": "\(name) marker"])
        for (_, node) in nodes { try await node.event("\(name) marker", within: .seconds(30)) { _ in count(node, text: "\(name) marker") >= 1 } }
        for (_, node) in nodes {
            for (sender, _) in nodes { #expect(count(node, text: "\(name) from \(sender)") == 1) }
        }
    }

    @Test func eightNodesGossipToEveryoneAndSurviveAKill() async throws {
        let port = EndToEndTests.discoveryPort()
        let nodes = try (0..<8).map { ("o\($0)", try Self.node("o\($0)", port: port)) }
        defer { nodes.forEach { $0.1.kill9() } }
        for (_, node) in nodes { try await node.event("ready") { $0["event"] as? String == "ready" } }
        var asked = 0
        #expect(try await waitUntil("every node above the threshold, in a view", within: .seconds(30)) {
            for (_, node) in nodes {
                asked += 1
                let transport = try await Self.transport(node, "mode\(asked)")
                guard transport["overlayPartial"] == 1, (transport["overlayActivePeers"] ?? 0) > 0 else { return false }
            }
            return true
        })
        try await Self.round("first", nodes)
        var links: [Int] = []
        for (index, (_, node)) in nodes.enumerated() {
            let transport = try await Self.transport(node, "after\(index)")
            #expect(transport["gossipPublished", default: 0] >= 1, "its own message went by gossip")
            #expect(transport["overlayActivePeers", default: 99] <= 10, "the view's hard cap")
            links.append(transport["overlayActivePeers", default: -1])
        }
        print("8 lanchat processes, overlay forced on: active view per node \(links)")

        nodes[3].1.kill9()
        try await Self.round("second", nodes.enumerated().filter { $0.offset != 3 }.map(\.element))

        // A latecomer catches up from whichever neighbours the overlay gives it.
        let late = try Self.node("late", port: port)
        defer { late.kill9() }
        for text in ["first from o3", "second from o7"] {
            try await late.event("caught up \(text)", within: .seconds(30)) { _ in Self.count(late, text: text) == 1 }
        }
    }
}
