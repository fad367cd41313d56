import CSQLite
import ChatCore
import ChatStore
import Foundation

/// Rows about `/search`: queries over a large history through the trigram
/// index beside a LIKE scan of the same table, and what keeping the index
/// costs the insert paths (bulk import and receiving over a link) beside
/// the same paths with the index's triggers dropped, in the same run.
enum SearchRows {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static let english = """
        the a to and of you is it in that for on we have this be are with lunch meeting tomorrow server deploy build \
        coffee release network router switch printer office weekend project review ticket update schedule morning \
        evening docker kernel laptop monitor keyboard cable battery password backup restore invoice budget report \
        holiday train station airport hotel dinner birthday party music movie football weather rain snow sunny
        """.split(separator: " ").map(String.init)
    static let korean = """
        안녕하세요 안녕 감사합니다 회의 점심 내일 오늘 서버 배포 커피 네트워크 프린터 사무실 주말 프로젝트 검토 \
        일정 아침 저녁 노트북 모니터 키보드 비밀번호 백업 보고서 휴가 기차 공항 호텔 저녁식사 생일 음악 영화 날씨 비 눈
        """.split(separator: " ").map(String.init)

    /// A chat line of 4 to 12 words, English and Korean mixed, seeded by
    /// `index`; one message in a thousand carries a unique ticket number.
    static func text(_ index: Int) -> String {
        var state = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678
        func next() -> Int {
            state ^= state >> 33; state &*= 0xFF51_AFD7_ED55_8CCD; state ^= state >> 33
            return Int(truncatingIfNeeded: state >> 1)
        }
        let words = 4 + next() % 9
        var parts: [String] = []
        for _ in 0..<words {
            parts.append(next() % 4 == 0 ? korean[next() % korean.count] : english[next() % english.count])
        }
        if index % 1000 == 0 { parts.append("ticket-\(index)!") }
        return parts.joined(separator: " ")
    }

    static func message(_ index: Int, base: Int64, senders: [NodeNumber]) -> Message {
        let millis = base + Int64(index) * 1000
        let room: RoomID = index % 5 == 0 ? .direct(senders[index % senders.count]) : .publicRoom
        return Message(id: MessageID(millis: millis, random: (UInt64(index), UInt64(index) &* 0x9E37_79B9_7F4A_7C15)),
                       room: room, senderNumber: senders[index % senders.count], senderNickname: "sender\(index % 10)",
                       content: text(index), timestamp: millis)
    }

    /// Imports `total` messages in 10k transactions; returns messages a second.
    static func fill(_ store: ChatStore, total: Int) async throws -> Double {
        let base: Int64 = 1_600_000_000_000
        let senders = (0..<10).map { NodeNumber(rawValue: 4711 + UInt64($0))! }
        var seconds = 0.0
        var next = 0
        while next < total {
            let chunk = (next..<min(next + 10_000, total)).map { message($0, base: base, senders: senders) }
            let start = ContinuousClock.now
            try await store.insert(contentsOf: chunk)
            seconds += Measure.seconds(ContinuousClock.now - start)
            next += chunk.count
        }
        return Double(total) / seconds
    }

    static func run(quick: Bool) async throws -> [BenchRow] {
        let total = quick ? 100_000 : 1_000_000
        let directory = NSTemporaryDirectory() + "lanchat-bench-search-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let me = NodeNumber(rawValue: 1)!

        // The same messages into a store without the index (`noIndex`): the
        // import baseline. Then the one-time rebuild an upgraded file pays.
        let plainPath = directory + "/plain.sqlite"
        try await ChatStore(path: plainPath, localNumber: me).close()
        try execute(path: plainPath, SearchRows.noIndex)
        let plain = try ChatStore(path: plainPath, localNumber: me)
        let plainRate = try await fill(plain, total: total)
        await plain.close()
        let rebuildStart = ContinuousClock.now
        try execute(path: plainPath, """
            DROP VIEW messages_search;
            CREATE VIRTUAL TABLE messages_search USING fts5(
                content, content = 'messages', content_rowid = 'seq', tokenize = 'trigram', columnsize = 0, detail = none);
            INSERT INTO messages_search (messages_search) VALUES ('rebuild');
            """)  // the index as ChatStore's Schema+Search.swift makes it
        let rebuildSeconds = Measure.seconds(ContinuousClock.now - rebuildStart)
        try? FileManager.default.removeItem(atPath: plainPath)

        let path = directory + "/history.sqlite"
        let store = try ChatStore(path: path, localNumber: me)
        let indexedRate = try await fill(store, total: total)
        let fileMB = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1_048_576

        // Queries as people type them, of every selectivity.
        var rng = SystemRandomNumberGenerator()
        let runs = quick ? 300 : 1000
        var samples: [String: [Double]] = [:]
        for run in 0..<runs {
            let kind: String
            let text: String
            switch run % 6 {
            case 0: kind = "rare"; text = "ticket-\(Int.random(in: 0..<total / 1000, using: &rng) * 1000)!"
            case 1: kind = "word"; text = english.filter { $0.count >= 4 }.randomElement(using: &rng)!
            case 2: kind = "korean"; text = korean.filter { $0.unicodeScalars.count >= 3 }.randomElement(using: &rng)!
            case 3: kind = "two words"; text = english.filter { $0.count >= 4 }.randomElement(using: &rng)! + " " + english.randomElement(using: &rng)!
            case 4: kind = "absent"; text = "zq\(Int.random(in: 100...999, using: &rng))x"
            default: kind = "short"; text = ["안녕", "비", "눈", "ok", "zz", "회의"].randomElement(using: &rng)!
            }
            let query = try SearchQuery(text)
            let start = ContinuousClock.now
            let results = try await store.search(query)
            samples[kind, default: []].append(Measure.micros(ContinuousClock.now - start))
            if kind == "rare" && results.hits.count != 1 { throw Failure(description: "\(text): \(results.hits.count) hits") }
        }
        await store.close()
        let indexed = samples.filter { $0.key != "short" }.flatMap(\.value)
        let p50 = Measure.percentile(indexed, 0.5), p99 = Measure.percentile(indexed, 0.99)
        let byKind = samples.keys.sorted().map { "\($0) \(Measure.ms(Measure.percentile(samples[$0]!, 0.99)))" }.joined(separator: ", ")

        // Baseline: the same newest-first page by a LIKE scan of the table.
        var likeRare: [Double] = [], likeWord: [Double] = []
        for _ in 0..<(quick ? 2 : 3) {
            likeRare.append(try likeScan(path: path, text: "ticket-\(Int.random(in: 0..<total / 1000, using: &rng) * 1000)!"))
            likeWord.append(try likeScan(path: path, text: "meeting"))
        }
        let likeRareMedian = Measure.percentile(likeRare, 0.5), likeWordMedian = Measure.percentile(likeWord, 0.5)
        let shortP50 = Measure.percentile(samples["short"] ?? [0], 0.5), shortP99 = Measure.percentile(samples["short"] ?? [0], 0.99)
        var numbers: [String: Double] = ["p50_us": p50, "p99_us": p99, "like_rare_us": likeRareMedian, "like_word_us": likeWordMedian,
                                         "short_p50_us": shortP50, "short_p99_us": shortP99, "stored": Double(total),
                                         "queries": Double(runs), "scan_budget": Double(ChatStore.searchScanBudget)]
        for (kind, values) in samples { numbers["p99_us_" + kind.replacingOccurrences(of: " ", with: "_")] = Measure.percentile(values, 0.99) }
        var searchRow = BenchRow(
            key: "search", figure: "/search at \(total / 1000)k stored (3+ characters, through the trigram index), newest 50, p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99))",
            baseline: "LIKE scan of the same table, newest 50: \(Measure.ms(likeRareMedian)) for a rare word, \(Measure.ms(likeWordMedian)) for a common one",
            target: "p99 < 20 ms", met: p99 < 20_000, numbers: numbers)
        searchRow.note = "p99 by kind: \(byKind); 1-2 character text (no trigram) scans \(ChatStore.searchScanBudget) messages a page: "
            + "p50 \(Measure.ms(shortP50)) / p99 \(Measure.ms(shortP99))"

        let costRow = BenchRow(
            key: "search-cost", figure: "bulk import with the search index (\(total / 1000)k messages, 10k a transaction)",
            value: Measure.rate(indexedRate), baseline: "same import, index writes going to a no-op view: \(Measure.rate(plainRate))",
            target: "-", met: nil,
            numbers: ["per_second": indexedRate, "baseline_per_second": plainRate, "rebuild_seconds": rebuildSeconds, "file_mb": fileMB],
            note: String(format: "indexing an upgraded file of %dk messages once: %.1f s; file with index %.0f MB", total / 1000, rebuildSeconds, fileMB))
        return [searchRow, costRow]
    }

    /// The receive row's path (signed messages over an encrypted link into
    /// a file store) with and without the index's triggers.
    static func receiving(quick: Bool) async throws -> BenchRow {
        let count = quick ? 20_000 : 100_000
        let directory = NSTemporaryDirectory() + "lanchat-bench-search-rx-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let with = try await LinkLoad.receive(count: count, storePath: directory + "/rx-index.sqlite", timeout: .seconds(quick ? 60 : 180))
        let plainPath = directory + "/rx-plain.sqlite"
        try await ChatStore(path: plainPath, localNumber: NodeNumber(rawValue: 1)!).close()
        try execute(path: plainPath, SearchRows.noIndex)
        let without = try await LinkLoad.receive(count: count, storePath: plainPath, timeout: .seconds(quick ? 60 : 180))
        var row = BenchRow(
            key: "search-receive", figure: "receiving over an encrypted link into a file (as the receive row), with the search index",
            value: Measure.rate(with.rate), baseline: "same, index writes going to a no-op view: \(Measure.rate(without.rate))",
            target: "> 50k/s", met: with.rate > 50_000 && with.received == count,
            numbers: ["per_second": with.rate, "baseline_per_second": without.rate, "messages": Double(count)])
        if with.received < count || without.received < count {
            row.note = "stored \(with.received) (index) and \(without.received) (no index) of \(count)"
        }
        return row
    }

    /// Swaps the index for a view that takes the store's index writes and
    /// does nothing (its INSTEAD OF trigger costs a little): the baseline.
    static let noIndex = """
        DROP TABLE messages_search;
        CREATE VIEW messages_search (rowid, content) AS SELECT 0, '';
        CREATE TRIGGER messages_search_none INSTEAD OF INSERT ON messages_search BEGIN SELECT 1; END;
        """

    /// Runs `sql` on its own connection to `path`.
    static func execute(path: String, _ sql: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { throw Failure(description: "open \(path)") }
        defer { sqlite3_close_v2(db) }
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &error) == SQLITE_OK else {
            defer { sqlite3_free(error) }
            throw Failure(description: "\(sql): \(error.map { String(cString: $0) } ?? "?")")
        }
    }

    /// The baseline: newest 50 rows whose text contains `text`, by LIKE
    /// (case-insensitive for ASCII, as the index is), in microseconds.
    static func likeScan(path: String, text: String) throws -> Double {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw Failure(description: "open \(path)") }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        let sql = "SELECT id, room, sent_at, sender, nickname, content FROM messages WHERE content LIKE ?1 ORDER BY seq DESC LIMIT 50"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw Failure(description: "prepare") }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, "%\(text)%", -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        let start = ContinuousClock.now
        var rows = 0
        while sqlite3_step(statement) == SQLITE_ROW { rows += 1 }
        precondition(rows > 0)
        return Measure.micros(ContinuousClock.now - start)
    }
}
