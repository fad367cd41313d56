import ChatCore
import ChatCrypto
import Foundation
import LANChatHarness
import Synchronization
import Testing
import TestSupport

/// Real `lanchat` processes on loopback, driven over `--json`. Each test
/// has its own discovery port so parallel tests never hear each other.
@Suite(.realTime) struct EndToEndTests {
    static let nextPort = Atomic<Int>(0)

    /// A discovery port for one test: a per-run base plus a counter, in
    /// 20000..<30000, below the ephemeral range (32768-60999).
    static func discoveryPort() -> Int {
        let base = 20_000 + Int(ProcessInfo.processInfo.processIdentifier % 625) * 16
        return base + nextPort.add(1, ordering: .relaxed).newValue % 16
    }

    /// Starts a `--json` node on `port`, broadcasting on loopback only.
    static func node(_ nickname: String, port: Int, _ extra: [String] = [], dataDir: String? = nil) throws -> NodeProcess {
        var arguments = ["--json", "--nick", nickname, "--broadcast", "127.255.255.255", "--discovery-port", "\(port)",
                         "--beacon-interval", "0.5"]
        arguments += dataDir.map { ["--data-dir", $0] } ?? ["--in-memory"]
        return try NodeProcess(arguments + extra)
    }

    static func bot(_ kind: String, nickname: String, port: Int) throws -> NodeProcess {
        try NodeProcess(["bot", kind, "--nick", nickname, "--broadcast", "127.255.255.255", "--discovery-port", "\(port)",
                         "--beacon-interval", "0.5"])
    }

    static func number(of node: NodeProcess) async throws -> Int {
        let ready = try await node.event("ready") { $0["event"] as? String == "ready" }
        return ready["number"] as! Int
    }

    static func waitForPeers(_ node: NodeProcess, _ names: Set<String>) async throws {
        try await node.event("peers \(names)", within: .seconds(15)) { _ in
            let joined = Set(node.jsonEvents.filter { $0["event"] as? String == "peerJoined" }
                .compactMap { ($0["peer"] as? [String: Any])?["nickname"] as? String })
            return names.isSubset(of: joined)
        }
    }

    static func messages(_ node: NodeProcess, text: String) -> [[String: Any]] {
        node.jsonEvents.filter { $0["event"] as? String == "message" && $0["text"] as? String == text }
    }

    @Test func publicMessageReachesEveryoneOnce() async throws {
        let port = Self.discoveryPort()
        let alice = try Self.node("alice", port: port), bob = try Self.node("bob", port: port), carol = try Self.node("carol", port: port)
        defer { [alice, bob, carol].forEach { $0.kill9() } }
        try await Self.waitForPeers(alice, ["bob", "carol"])
        try await Self.waitForPeers(bob, ["carol"])
        alice.send(json: ["cmd": "send", "text": "hello everyone"])
        for node in [bob, carol] {
            try await node.event("hello") { $0["event"] as? String == "message" && $0["text"] as? String == "hello everyone" }
        }
        // A marker sent after it: once it is in, a duplicate would be too.
        alice.send(json: ["cmd": "send", "text": "marker"])
        for node in [alice, bob, carol] {
            try await node.event("marker") { $0["text"] as? String == "marker" }
        }
        // Alice's own line too: the marker's event is read after it.
        #expect(Self.messages(alice, text: "hello everyone").count == 1)
        for node in [bob, carol] {
            #expect(Self.messages(node, text: "hello everyone").count == 1)
            let mine = Self.messages(node, text: "hello everyone").first?["mine"] as? Bool
            #expect(mine == false)
        }
    }

    @Test func dmRequestAcceptedThenDMReachesOnlyItsTarget() async throws {
        let port = Self.discoveryPort()
        let alice = try Self.node("alice", port: port), bob = try Self.node("bob", port: port), carol = try Self.node("carol", port: port)
        defer { [alice, bob, carol].forEach { $0.kill9() } }
        try await Self.waitForPeers(alice, ["bob", "carol"])
        try await Self.waitForPeers(bob, ["alice"])
        alice.send(json: ["cmd": "dm", "to": "bob", "text": "can we talk?"])
        try await bob.event("dm request") { $0["event"] as? String == "dmRequest" && $0["text"] as? String == "can we talk?" }
        bob.send(json: ["cmd": "accept", "peer": "alice", "id": "a1"])
        try await bob.event("accept ok") { $0["event"] as? String == "ok" && $0["re"] as? String == "a1" }
        try await alice.event("accepted") { $0["event"] as? String == "dmState" && $0["state"] as? String == "accepted" }
        alice.send(json: ["cmd": "dm", "to": "bob", "text": "just for you"])
        let delivered = try await alice.event("delivered", within: .seconds(10)) {
            $0["event"] as? String == "delivery" && $0["state"] as? String == "delivered"
        }
        #expect(delivered["room"] as? String != nil)
        try await bob.event("dm") { $0["text"] as? String == "just for you" && ($0["room"] as? String)?.hasPrefix("dm:") == true }
        // Carol's counters: not one DM-kind frame reached her.
        carol.send(json: ["cmd": "stats", "id": "s"])
        let stats = try await carol.event("stats") { $0["re"] as? String == "s" }
        let byType = stats["receivedByType"] as? [String: Int] ?? [:]
        #expect(byType["directMessage"] == nil && byType["dmRequest"] == nil && byType["dmAccept"] == nil)
        #expect(Self.messages(carol, text: "just for you").isEmpty)
    }

    @Test func echoBotAnswersAndTwoBotsDoNotLoop() async throws {
        let port = Self.discoveryPort()
        let echo1 = try Self.bot("echo", nickname: "echo1", port: port)
        let echo2 = try Self.bot("echo", nickname: "echo2", port: port)
        let driver = try Self.node("driver", port: port)
        defer { [echo1, echo2, driver].forEach { $0.kill9() } }
        try await Self.waitForPeers(driver, ["echo1", "echo2"])
        // A person's DM is a request; the bot's answer accepts it.
        driver.send(json: ["cmd": "dm", "to": "echo1", "text": "hello bot"])
        let answer = try await driver.event("echo", within: .seconds(10)) { $0["text"] as? String == "echo: hello bot" }
        #expect(answer["automatic"] as? Bool == true)
        // An automatic DM (what another bot's answer is) gets no answer,
        // while the next person's DM does. Frames on a link are ordered, so
        // once the second answer is in, an answer to the first would be too.
        driver.send(json: ["cmd": "dm", "to": "echo1", "text": "i am a bot too", "automatic": true])
        driver.send(json: ["cmd": "dm", "to": "echo1", "text": "again"])
        try await driver.event("second echo", within: .seconds(10)) { $0["text"] as? String == "echo: again" }
        let answeredBot = driver.jsonEvents.filter { ($0["text"] as? String)?.hasPrefix("echo: i am") == true }
        #expect(answeredBot.isEmpty)
        // The other bot answers too, and neither answers the other.
        driver.send(json: ["cmd": "dm", "to": "echo2", "text": "ping"])
        try await driver.event("echo2", within: .seconds(10)) { $0["text"] as? String == "echo: ping" }
        #expect(driver.jsonEvents.filter { $0["text"] as? String == "echo: echo: ping" }.isEmpty)
    }

    @Test func chatterBotSendsItsCountThenLeaves() async throws {
        let port = Self.discoveryPort()
        let listener = try Self.node("listener", port: port)
        defer { listener.kill9() }
        try await listener.event("ready") { $0["event"] as? String == "ready" }
        let chatter = try NodeProcess(["bot", "chatter", "--rate", "20", "--count", "5", "--nick", "chatty",
                                       "--broadcast", "127.255.255.255", "--discovery-port", "\(port)", "--beacon-interval", "0.5"])
        defer { chatter.kill9() }
        #expect(try await chatter.waitForExit(within: .seconds(15)) == 0)
        try await listener.event("chatty left") { $0["event"] as? String == "peerLeft" && $0["reason"] as? String == "left" }
        let heard = listener.jsonEvents.filter { $0["event"] as? String == "message" && $0["automatic"] as? Bool == true }
        // Whatever was sent before the link came up arrives through catch-up.
        try await listener.event("all five", within: .seconds(10)) { _ in
            Set(listener.jsonEvents.filter { $0["event"] as? String == "message" }.compactMap { $0["text"] as? String }).count == 5
        }
        #expect(heard.allSatisfy { ($0["text"] as? String)?.hasPrefix("chatter ") == true })
    }

    @Test func cleanQuitIsSeenAsLeaveAndExitsZero() async throws {
        let port = Self.discoveryPort()
        let alice = try Self.node("alice", port: port), bob = try Self.node("bob", port: port), carol = try Self.node("carol", port: port)
        defer { [alice, bob, carol].forEach { $0.kill9() } }
        try await Self.waitForPeers(alice, ["bob", "carol"])
        bob.send(json: ["cmd": "quit"])
        carol.signal(SIGTERM)
        #expect(try await bob.waitForExit() == 0)
        #expect(try await carol.waitForExit() == 0)
        let last = bob.jsonEvents.last?["event"] as? String
        #expect(last == "stopped")
        for name in ["bob", "carol"] {
            try await alice.event("\(name) left") {
                $0["event"] as? String == "peerLeft" && ($0["peer"] as? [String: Any])?["nickname"] as? String == name
                    && $0["reason"] as? String == "left"
            }
        }
    }

    @Test func historySurvivesARestartAsTheSameNode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-e2e-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = Self.discoveryPort()
        let alice = try Self.node("alice", port: port, dataDir: directory)
        let first = try await Self.number(of: alice)
        alice.send(json: ["cmd": "send", "text": "remember me"])
        try await alice.event("sent") { $0["event"] as? String == "ok" && $0["cmd"] as? String == "send" }
        alice.send(json: ["cmd": "quit"])
        #expect(try await alice.waitForExit() == 0)

        let again = try Self.node("alice", port: port, dataDir: directory)
        defer { again.kill9() }
        #expect(try await Self.number(of: again) == first)
        again.send(json: ["cmd": "history", "room": "public", "id": "h"])
        let page = try await again.event("history") { $0["re"] as? String == "h" }
        let texts = (page["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        #expect(texts == ["remember me"])
        // The directory is locked while a node uses it.
        let twin = try Self.node("alice", port: port, dataDir: directory)
        #expect(try await twin.waitForExit() == 1)
        #expect(twin.stderrLines.first?.contains("in use by another lanchat") == true)
    }

    @Test func badCommandLinesYieldErrorsNotExits() async throws {
        let port = Self.discoveryPort()
        let alice = try Self.node("alice", port: port)
        defer { alice.kill9() }
        try await alice.event("ready") { $0["event"] as? String == "ready" }
        alice.send("this is not json")
        alice.send(#"{"cmd":"launch","id":1}"#)
        alice.send(json: ["cmd": "send", "text": String(repeating: "x", count: 241), "id": "long"])
        alice.send(json: ["cmd": "dm", "to": "nobody", "text": "hi", "id": "who"])
        try await alice.event("not json") { $0["event"] as? String == "error" && $0["message"] as? String == "not a JSON object" }
        try await alice.event("unknown cmd") { $0["event"] as? String == "error" && ($0["message"] as? String)?.contains("launch") == true }
        try await alice.event("too long") { $0["re"] as? String == "long" && ($0["message"] as? String)?.contains("241 characters") == true }
        try await alice.event("unknown peer") { $0["re"] as? String == "who" && $0["message"] as? String == "no peer named nobody" }
        alice.send(json: ["cmd": "peers", "id": "still"])
        try await alice.event("still running") { $0["re"] as? String == "still" }
    }

    @Test func escapeSequencesFromAPeerNeverReachTheTerminal() async throws {
        let port = Self.discoveryPort()
        // An interactive node, as a person would run it (stdout is a pipe here).
        let bob = try NodeProcess(["--nick", "bob", "--in-memory", "--broadcast", "127.255.255.255", "--discovery-port", "\(port)"])
        defer { bob.kill9() }
        let banner = try await bob.line(containing: "linking on TCP port")
        let tcpPort = Int(banner.split(separator: " ").first { Int($0.trimmingCharacters(in: .punctuationCharacters)) != nil }!
            .trimmingCharacters(in: .punctuationCharacters))!

        let now = Int(Date().timeIntervalSince1970 * 1000)
        // Eve holds a real key: her handshake and her public messages pass
        // every check, so what is tested is the terminal, not a signature.
        let eveKey = try IdentityKey.generate()
        let eveNumber = eveKey.nodeNumber
        let eve = try RawPeer(connectingTo: tcpPort, key: eveKey, nickname: "eve")
        func frame(_ type: String, id: Int, nickname: String, content: String = "", extra: String = "") -> String {
            let uuid = String(format: "01934c04-c000-7a1b-809a-%012x", id)
            var extra = extra
            if type == "publicMessage" {
                var payload = P2PPayload(type: .publicMessage, messageId: MessageID(uuid)!, senderNumber: eveNumber,
                                         senderNickname: nickname, content: content, timestamp: Int64(now))
                Ed25519MessageAuthenticator(key: eveKey).sign(&payload)
                extra += #","signature":"\#(payload.signature!)","authorKey":"\#(payload.authorKey!)""#
            }
            let escapedNick = nickname.unicodeScalars.map { $0.value < 0x20 ? String(format: "\\u%04x", $0.value) : String($0) }.joined()
            let escapedContent = content.unicodeScalars.map { $0.value < 0x20 ? String(format: "\\u%04x", $0.value) : String($0) }.joined()
            return #"{"version":2,"type":"\#(type)","messageId":"\#(uuid)","senderNumber":\#(eveNumber),"senderNickname":"\#(escapedNick)","content":"\#(escapedContent)","timestamp":\#(now)\#(extra)}"#
        }
        // Bob accepting the link (his first record) is his answer to her hello.
        try await eve.handshake()
        // Each frame by hand, as one record: the escapes go out as written.
        eve.sendRecord(frame("publicMessage", id: 2, nickname: "eve", content: "\u{1B}]0;owned\u{07}hi \u{1B}[31mred\u{1B}[0m\u{1B}[2J"))
        eve.sendRecord(frame("publicMessage", id: 3, nickname: "\u{1B}[5meve", content: "blink name"))
        eve.sendRecord(frame("publicMessage", id: 4, nickname: "eve", content: "after"))
        try await bob.line(containing: "eve: after")
        let output = bob.stdoutLines.joined(separator: "\n")
        #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(output.contains("eve: hi red"))
        #expect(!output.contains("blink name"), "a frame with control characters in the nickname is refused")
    }
}
