import ChatCore
import ChatNode
import ChatStore
import Foundation
import ChatApp
import Testing
import TestSupport

/// `/search` and `/jump` from the console and `--json`: parsing, the
/// `search` reply scripts read, paging on, and a result opening its room.
@Suite struct SearchCommandTests {
    static let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
    static let bob = NodeNumber(rawValue: 2)!
    static let base: Int64 = 1_732_147_200_000

    /// A node over a store holding 60 public messages and a DM thread with
    /// bob, two of which say 안녕.
    static func node() async throws -> ChatNode {
        let store = try ChatStore(path: nil, localNumber: me.number)
        var messages = (0..<60).map { index in
            Message(id: MessageID(millis: base + Int64(index) * 1000, random: (1, UInt64(index))), room: .publicRoom,
                    senderNumber: bob, senderNickname: "bob", content: "public \(index)", timestamp: base + Int64(index) * 1000)
        }
        messages[10].content = "다들 안녕하세요 (public)"
        messages.append(Message(id: MessageID(millis: base + 70_000, random: (2, 1)), room: .direct(bob), senderNumber: bob,
                                senderNickname: "bob", content: "안녕 in a DM", timestamp: base + 70_000))
        try await store.insert(contentsOf: messages)
        // Not started: search reads the store alone, so no timers run.
        return ChatNode(identity: me, transport: InMemoryNetwork().transport(for: me), store: store)
    }

    @Test func consoleAndJSONLinesParse() throws {
        #expect(try ConsoleCommandParser.parse("/search 안녕") == .search("안녕", before: nil, limit: nil))
        #expect(try ConsoleCommandParser.parse("/SEARCH  say \"hi\"  NEAR * ") == .search("say \"hi\"  NEAR *", before: nil, limit: nil))
        #expect(try ConsoleCommandParser.parse("/search") == .search(nil, before: nil, limit: nil))
        #expect(try ConsoleCommandParser.parse("/search   ") == .search(nil, before: nil, limit: nil))
        #expect(throws: UsageError("unknown command /searchx; /help lists them")) { try ConsoleCommandParser.parse("/searchx") }
        #expect(try ConsoleCommandParser.parse("/jump 3") == .jump(3))
        #expect(throws: UsageError("usage: /jump N (a /search result's number)")) { try ConsoleCommandParser.parse("/jump x") }
        #expect(throws: UsageError("usage: /jump N (a /search result's number)")) { try ConsoleCommandParser.parse("/jump 0") }
        #expect(try JSONCommandParser.parse(#"{"cmd":"search","text":"안녕"}"#).command == .search("안녕", before: nil, limit: nil))
        #expect(try JSONCommandParser.parse(#"{"cmd":"search","text":"x","before":41,"limit":5}"#).command == .search("x", before: 41, limit: 5))
        #expect(try JSONCommandParser.parse(#"{"cmd":"jump","result":2}"#).command == .jump(2))
        #expect(throws: UsageError("search: missing string field \"text\"")) { try JSONCommandParser.parse(#"{"cmd":"search"}"#) }
        #expect(throws: UsageError("search: \"before\" is a whole number")) { try JSONCommandParser.parse(#"{"cmd":"search","text":"x","before":"9"}"#) }
        #expect(throws: UsageError("search: \"limit\" is a whole number")) { try JSONCommandParser.parse(#"{"cmd":"search","text":"x","limit":1.5}"#) }
    }

    /// Runs JSON lines through a session; returns the objects it wrote.
    static func replies(_ lines: [String], node: ChatNode) async throws -> [[String: Any]] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-search-\(UUID().uuidString).jsonl").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let session = JSONSession(node: node, out: LineWriter(handle), instanceId: "test")
        for line in lines { _ = await session.handle(line: line) }
        try handle.close()
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func theJSONSearchReplyListsResultsNewestFirstAcrossRooms() async throws {
        let node = try await Self.node()
        let replies = try await Self.replies([
            #"{"cmd":"search","text":"안녕","id":1}"#,
            #"{"cmd":"search","text":"PUBLIC 1","limit":3,"id":2}"#,
            #"{"cmd":"search","text":"\"*\" NEAR(","id":3}"#,
            #"{"cmd":"search","text":"   ","id":4}"#,
        ], node: node)
        try #require(replies.count == 4)
        #expect(replies[0]["event"] as? String == "ok")
        #expect(replies[0]["cmd"] as? String == "search")
        #expect(replies[0]["re"] as? String == "1")
        let results = try #require(replies[0]["results"] as? [[String: Any]])
        #expect(results.map { $0["text"] as? String } == ["안녕 in a DM", "다들 안녕하세요 (public)"])
        #expect(results.map { $0["room"] as? String } == ["dm:2", "public"])
        #expect(results.map { $0["result"] as? Int } == [1, 2])
        #expect(replies[0]["before"] == nil, "everything was searched")
        // Case-insensitive, limited, with a cursor to go on from.
        let limited = try #require(replies[1]["results"] as? [[String: Any]])
        #expect(limited.map { $0["text"] as? String } == ["public 19", "public 18", "public 17"])
        #expect(replies[1]["before"] as? Int != nil)
        // FTS syntax is text: nothing matches, and no SQLite error leaks.
        #expect(replies[2]["event"] as? String == "ok")
        #expect((replies[2]["results"] as? [Any])?.isEmpty == true)
        #expect(replies[3]["event"] as? String == "error")
        #expect(replies[3]["message"] as? String == "nothing to search for: /search WORDS")
    }

    @Test func aResultOpensItsRoomAroundItAndPagesBothWays() async throws {
        let node = try await Self.node()
        let executor = CommandExecutor(node: node)
        guard case .search(let results, let first) = try await executor.run(.search("안녕하세요", before: nil, limit: nil)) else {
            Issue.record("not a search result"); return
        }
        #expect(first == 1)
        #expect(results.messages.map(\.content) == ["다들 안녕하세요 (public)"])
        guard case .history(let page, _) = try await executor.run(.jump(1)) else { Issue.record("not a page"); return }
        #expect(page.room == .publicRoom)
        #expect(page.messages.contains { $0.content == "다들 안녕하세요 (public)" })
        #expect(page.messages.first?.content == "public 0", "the hit is near the top: only 10 are older")
        #expect(page.hasMoreAfter)
        guard case .history(let newer, _) = try await executor.run(.more(older: false)) else { Issue.record("not a page"); return }
        #expect(newer.messages.first?.content == "public \(page.messages.count)")
        await #expect(throws: NodeError.chat(.invalidSearch(reason: "no result 2; the last search has 1"))) { try await executor.run(.jump(2)) }
    }

    @Test func searchWithNoWordsShowsTheNextPage() async throws {
        let node = try await Self.node()
        let executor = CommandExecutor(node: node)
        await #expect(throws: NodeError.chat(.invalidSearch(reason: "nothing to search for: /search WORDS"))) {
            try await executor.run(.search(nil, before: nil, limit: nil))
        }
        var seen: [String] = []
        var firsts: [Int] = []
        for command in [ControlCommand.search("public", before: nil, limit: 25), .search(nil, before: nil, limit: 25),
                        .search(nil, before: nil, limit: 25), .search(nil, before: nil, limit: 25)] {
            guard case .search(let results, let first) = try await executor.run(command) else { Issue.record("not a search"); return }
            seen += results.messages.map(\.content)
            firsts.append(first)
        }
        #expect(firsts == [1, 26, 51, 61])
        #expect(seen.count == 60)
        #expect(Set(seen).count == 60)
        // Result numbers count on across pages.
        guard case .history(let page, _) = try await executor.run(.jump(60)) else { Issue.record("not a page"); return }
        #expect(page.messages.first?.content == "public 0")
    }

    @Test func theNodeScansShortTextStretchAfterStretchUntilFound() async throws {
        // Twice the store's stretch, in five DM rooms (an in-memory store
        // trims a room past 10k); the only 안녕 is the oldest message.
        let store = try ChatStore(path: nil, localNumber: Self.me.number)
        let count = ChatStore.searchScanBudget * 2 + 10
        var messages = (0..<count).map { index in
            let peer = NodeNumber(rawValue: 10 + UInt64(index % 5))!
            return Message(id: MessageID(millis: Self.base + Int64(index), random: (3, UInt64(index))), room: .direct(peer),
                           senderNumber: peer, senderNickname: "p", content: "x\(index)", timestamp: Self.base + Int64(index))
        }
        messages[0].content = "옛날 안녕"
        var next = 0
        while next < count {
            try await store.insert(contentsOf: Array(messages[next..<min(next + 5000, count)]))
            next += 5000
        }
        let node = ChatNode(identity: Self.me, transport: InMemoryNetwork().transport(for: Self.me), store: store)
        let results = try await node.search("안녕")
        #expect(results.messages.map(\.content) == ["옛날 안녕"])
        #expect(results.continueBefore == nil)
        #expect(results.scanned == count)
    }

    @Test func consoleLinesNumberResultsAndNeverPrintPeerTextRaw() throws {
        let query = try SearchQuery("안녕")
        let message = Message(id: MessageID(millis: Self.base, random: (1, 1)), room: .direct(Self.bob), senderNumber: Self.bob,
                              senderNickname: "b\u{1b}[2Job", content: "안녕 \u{1b}]0;pwned\u{7}there", timestamp: Self.base)
        let results = SearchResults(query: query, hits: [.init(seq: 7, message: message)], continueBefore: 7, scanned: 50_000)
        let renderer = ConsoleRenderer(useColor: true, timeZone: TimeZone(identifier: "UTC")!)
        let lines = renderer.searchResults(results, first: 4, room: { _ in "@bob" }) { $0.senderNickname }
        #expect(lines.count == 2)
        let numbered = ConsoleRenderer(useColor: false, timeZone: TimeZone(identifier: "UTC")!)
            .searchResults(results, first: 4, room: { _ in "@bob" }) { _ in "bob" }
        #expect(numbered[0].hasPrefix("  4 2024-11-21 00:00 @bob bob: 안녕 "), "\(numbered)")
        #expect(lines[0].contains("\u{1B}[1m안녕\u{1B}[0m"), "the match in bold")
        #expect(!lines.joined().contains("\u{1b}[2J") && !lines.joined().contains("\u{1b}]0;"), "\(lines)")
        #expect(lines[1].contains("/search with no words"))
        let plain = ConsoleRenderer(useColor: false).searchResults(
            SearchResults(query: query, hits: [], continueBefore: nil), first: 1, room: { _ in "" }) { _ in "" }
        #expect(plain == ["-- nothing found for \"안녕\""])
    }
}
