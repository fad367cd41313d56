import CSQLite
import ChatCore
import ChatStore
import Foundation

/// Rows about the history store: bulk import, paging at a large history
/// against the naive "load all, sort, slice", and chat-list grouping.
enum StoreRows {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func run(quick: Bool, baselines: CBaselines) async throws -> [BenchRow] {
        let total = quick ? 100_000 : 1_000_000
        let batch = 10_000
        let directory = NSTemporaryDirectory() + "lanchat-bench-store-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/history.sqlite"
        let me = NodeNumber(rawValue: 1)!
        let store = try ChatStore(path: path, localNumber: me)

        // Ten messages a millisecond-step from ten senders, oldest first: the
        // shape a busy public room has after years.
        let base: Int64 = 1_600_000_000_000
        let senders = (0..<10).map { NodeNumber(rawValue: 4711 + UInt64($0))! }
        func message(_ index: Int) -> Message {
            let millis = base + Int64(index) * 1000
            return Message(id: MessageID(millis: millis, random: (UInt64(index), UInt64(index) &* 0x9E37_79B9_7F4A_7C15)),
                           room: .publicRoom, senderNumber: senders[index % 10], senderNickname: "sender\(index % 10)",
                           content: NetworkRows.text(index), timestamp: millis)
        }
        var importSeconds = 0.0
        var next = 0
        while next < total {
            let chunk = (next..<min(next + batch, total)).map(message)
            let start = ContinuousClock.now
            try await store.insert(contentsOf: chunk)
            importSeconds += Measure.seconds(ContinuousClock.now - start)
            next += chunk.count
        }
        let importRate = Double(total) / importSeconds
        let rawRate = try baselines.sqliteInsert(path: directory + "/raw.sqlite", count: total, batch: batch)
        let importRow = BenchRow(
            key: "import", figure: "bulk import (\(total / 1000)k messages, \(batch / 1000)k a transaction)",
            value: Measure.rate(importRate), baseline: "raw SQLite from C: \(Measure.rate(rawRate))",
            target: "> 100k/s", met: importRate > 100_000,
            numbers: ["per_second": importRate, "baseline_per_second": rawRate, "messages": Double(total)])

        // Pages before random cursors, decoded into Swift values, through the actor.
        let pages = quick ? 2_000 : 10_000
        var samples: [Double] = []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<pages {
            let at = base + Int64.random(in: 0..<Int64(total), using: &generator) * 1000
            let start = ContinuousClock.now
            let page = try await store.page(.publicRoom, before: HistoryCursor.justBefore(millis: at), limit: 30)
            samples.append(Measure.micros(ContinuousClock.now - start))
            if page.isEmpty && at > base + 1000 { throw Failure(description: "empty page before \(at)") }
        }
        // Reading the oldest pages of a room where everything is unread:
        // each page read moves the marker and counts down what it passed.
        let reads = quick ? 10 : 20
        var readSamples: [Double] = []
        for index in 0..<reads {
            let first = message(index * 30).cursor, last = message(index * 30 + 29).cursor
            let start = ContinuousClock.now
            let unread = try await store.markRead(.publicRoom, shownFrom: first, upTo: last)
            readSamples.append(Measure.micros(ContinuousClock.now - start))
            if unread != total - (index + 1) * 30 { throw Failure(description: "\(unread) unread after page \(index)") }
        }
        await store.close()
        let p50 = Measure.percentile(samples, 0.5), p99 = Measure.percentile(samples, 0.99)
        let readP50 = Measure.percentile(readSamples, 0.5), readP99 = Measure.percentile(readSamples, 0.99)
        let seeking = try tableCount(path: path, after: message(reads * 30 - 1).cursor, excluding: me)
        let readRow = BenchRow(
            key: "read", figure: "a page read at \(total / 1000)k unread (marker moved across it, unread counted down, committed on disk), p50 / p99",
            value: "\(Measure.ms(readP50)) / \(Measure.ms(readP99))",
            baseline: "recounting everything after the marker, each row's sender read from the table (how it was done before): \(Measure.ms(seeking.micros))",
            target: "-", met: nil,
            numbers: ["p50_us": readP50, "p99_us": readP99, "table_count_us": seeking.micros, "reads": Double(reads)])

        // The naive way, same file: every row of the room, sorted, sliced.
        let naiveRuns = quick ? 2 : 3
        var naive: [Double] = []
        for _ in 0..<naiveRuns {
            let at = base + Int64.random(in: 0..<Int64(total)) * 1000
            let start = ContinuousClock.now
            let page = try naivePage(path: path, before: HistoryCursor.justBefore(millis: at), limit: 30)
            naive.append(Measure.micros(ContinuousClock.now - start))
            if page.count != 30 && at > base + 30_000 { throw Failure(description: "naive page has \(page.count) rows") }
        }
        let naiveMedian = Measure.percentile(naive, 0.5)
        let speedup = naiveMedian / p99
        let pageRow = BenchRow(
            key: "page", figure: "30-message page at \(total / 1000)k stored, p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99))",
            baseline: "load all, sort, slice: \(Measure.ms(naiveMedian)) (\(String(format: "%.0f", speedup))x the p99)",
            target: "p99 < 0.5 ms, > 1000x the naive", met: p99 < 500 && speedup > 1000,
            numbers: ["p50_us": p50, "p99_us": p99, "naive_us": naiveMedian, "speedup_vs_p99": speedup,
                      "stored": Double(total), "pages": Double(pages)])
        return [importRow, pageRow, readRow]
    }

    /// Counts the public room's messages from others after `cursor`, each
    /// row's sender read from the table (`content` is in no index).
    static func tableCount(path: String, after cursor: HistoryCursor, excluding me: NodeNumber) throws -> (count: Int, micros: Double) {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw Failure(description: "open \(path)") }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        let sql = """
            SELECT count(*) FROM messages WHERE room = 'public' AND (sent_at, id) > (?1, ?2) AND sender != ?3 AND content IS NOT NULL
            """
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw Failure(description: "prepare") }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, cursor.timestamp)
        _ = withUnsafeBytes(of: cursor.id.uuid.uuid) {
            sqlite3_bind_blob(statement, 2, $0.baseAddress, 16, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
        sqlite3_bind_int64(statement, 3, Int64(bitPattern: me.rawValue))
        let start = ContinuousClock.now
        guard sqlite3_step(statement) == SQLITE_ROW else { throw Failure(description: "count") }
        return (Int(sqlite3_column_int64(statement, 0)), Measure.micros(ContinuousClock.now - start))
    }

    /// Reads every message of the public room into Swift values, sorts them
    /// by display order and returns the `limit` before `cursor`.
    static func naivePage(path: String, before cursor: HistoryCursor, limit: Int) throws -> [Message] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw Failure(description: "open \(path)")
        }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        let sql = "SELECT id, sent_at, sender, nickname, stage, content, automatic FROM messages WHERE room = 'public'"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw Failure(description: "prepare") }
        defer { sqlite3_finalize(statement) }
        func text(_ column: Int32) -> String? {
            guard let raw = sqlite3_column_text(statement, column) else { return nil }
            return String(cString: raw)
        }
        var all: [Message] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            if let blob = sqlite3_column_blob(statement, 0), sqlite3_column_bytes(statement, 0) == 16 {
                withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(start: blob, count: 16)) }
            }
            guard let sender = NodeNumber(rawValue: UInt64(bitPattern: sqlite3_column_int64(statement, 2))) else { continue }
            all.append(Message(id: MessageID(uuid: UUID(uuid: uuid)), room: .publicRoom, senderNumber: sender,
                               senderNickname: text(3) ?? "", senderStage: text(4), content: text(5) ?? "",
                               timestamp: sqlite3_column_int64(statement, 1), automatic: sqlite3_column_int64(statement, 6) != 0))
        }
        all.sort(by: Message.displayOrder)
        let end = all.firstIndex { $0.cursor >= cursor } ?? all.count
        return Array(all[max(0, end - limit)..<end])
    }

    // MARK: Chat-list grouping

    struct FixedClock: ChatClock {
        let date: Date
        func now() -> Date { date }
        func uptime() -> Duration { .zero }
        // Grouping never waits; a timer on a clock that stands still would never fire.
        func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
    }

    static func grouping(quick: Bool) -> BenchRow {
        let rooms = 10_000
        let now = Date(timeIntervalSince1970: 1_736_000_000)  // early January 2025
        let dates = (0..<rooms).map { _ in now.addingTimeInterval(-Double.random(in: 0..<(3 * 365 * 86_400))) }
        let grouping = ChatListGrouping(clock: FixedClock(date: now), timeZone: TimeZone(identifier: "Europe/Berlin")!,
                                        locale: Locale(identifier: "en_US"))
        let runs = quick ? 20 : 100
        var samples: [Double] = []
        var sortSamples: [Double] = []
        var groupCount = 0
        for _ in 0..<runs {
            let start = ContinuousClock.now
            let groups = grouping.group(dates, by: { $0 })
            samples.append(Measure.micros(ContinuousClock.now - start))
            groupCount = groups.count
            let sortStart = ContinuousClock.now
            let sorted = dates.sorted(by: >)
            sortSamples.append(Measure.micros(ContinuousClock.now - sortStart))
            precondition(sorted.count == rooms)
        }
        let p50 = Measure.percentile(samples, 0.5), p99 = Measure.percentile(samples, 0.99)
        let sortP50 = Measure.percentile(sortSamples, 0.5)
        return BenchRow(
            key: "grouping", figure: "chat-list grouping, 10k rooms over 3 years (\(groupCount) groups), p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99))", baseline: "- (plain sort of the 10k dates: \(Measure.ms(sortP50)))",
            target: "< 10 ms", met: p99 < 10_000,
            numbers: ["p50_us": p50, "p99_us": p99, "sort_p50_us": sortP50])
    }
}
