import ChatCore
import ChatScreen
import Foundation

/// The full-screen client's frame cost: a 200x60 screen, 10k rooms in the
/// side list, 100 messages a second arriving (about 3 per frame at 30
/// frames a second, spread over the open room and 50 busy conversations).
/// One frame = those arrivals through the reducer + render + diff.
/// Baseline, same run: the naive way, regrouping all rooms and writing the
/// whole screen (every cell with its SGR) each frame.
enum ScreenRow {
    static func run(quick: Bool) -> BenchRow {
        let now = Date(timeIntervalSince1970: 1_736_000_000)
        let grouping = ChatListGrouping(clock: StoreRows.FixedClock(date: now), timeZone: TimeZone(identifier: "Europe/Berlin")!, locale: Locale(identifier: "en_US"))
        let me = NodeNumber(rawValue: 1)!
        var state = ScreenState(width: 200, height: 60, me: me, myName: "bench", grouping: grouping)
        var entries = [RoomEntry(room: .publicRoom, title: "public", unread: 3, lastActivity: now)]
        for index in 0..<9_999 {
            let peer = NodeNumber(rawValue: UInt64(index + 2))!
            entries.append(RoomEntry(room: .direct(peer), title: "peer\(index)", unread: index % 7, lastActivity: now.addingTimeInterval(-Double.random(in: 0..<(2 * 365 * 86_400))), online: index % 3 == 0))
        }
        var sequence = 0
        func message(room: RoomID, from sender: NodeNumber) -> Message {
            sequence += 1
            let millis = Int64(now.timeIntervalSince1970 * 1000) + Int64(sequence)
            return Message(id: MessageID(millis: millis, random: (UInt64(sequence), 7)), room: room, senderNumber: sender, senderNickname: "peer\(sender.rawValue)",
                           content: "message \(sequence) with some words to wrap, 한국어 and 😀 included", timestamp: millis)
        }
        _ = ScreenReducer.reduce(&state, .rooms(entries))
        let page = HistoryPage(room: .publicRoom, messages: (0..<30).map { _ in message(room: .publicRoom, from: NodeNumber(rawValue: 5)!) }, hasMoreBefore: true, hasMoreAfter: false)
        _ = ScreenReducer.reduce(&state, .opened(page, title: "public"))

        let frames = quick ? 300 : 1_500
        var previous: ScreenGrid? = ScreenRenderer.render(state).grid
        var samples: [Double] = [], baseline: [Double] = []
        var bytes = 0
        var parts: [[Double]] = [[], [], []]
        for frame in 0..<frames {
            // 100/s at 30 frames/s: 3 or 4 arrivals a frame.
            let arrivals = frame % 3 == 0 ? 4 : 3
            let start = ContinuousClock.now
            for index in 0..<arrivals {
                let busy = NodeNumber(rawValue: UInt64(2 + (frame * 7 + index) % 50))!
                let room: RoomID = index == 0 ? .publicRoom : .direct(busy)
                _ = ScreenReducer.reduce(&state, .message(message(room: room, from: busy), name: "peer"))
            }
            let t1 = ContinuousClock.now
            let rendered = ScreenRenderer.render(state)
            let t2 = ContinuousClock.now
            let output = ScreenDiff.output(from: previous, to: rendered.grid, cursorRow: rendered.cursorRow, cursorColumn: rendered.cursorColumn)
            previous = rendered.grid
            samples.append(Measure.micros(ContinuousClock.now - start))
            parts[0].append(Measure.micros(t1 - start)); parts[1].append(Measure.micros(t2 - t1)); parts[2].append(Measure.micros(ContinuousClock.now - t2))
            bytes += output.utf8.count

            let naiveStart = ContinuousClock.now
            let groups = grouping.group(Array(state.side.entries.values), by: { $0.lastActivity })
            let full = ScreenDiff.output(from: nil, to: rendered.grid, cursorRow: rendered.cursorRow, cursorColumn: rendered.cursorColumn)
            baseline.append(Measure.micros(ContinuousClock.now - naiveStart))
            precondition(!groups.isEmpty && !full.isEmpty)
        }
        print("SPLIT reduce/render/diff p50:", parts.map { Measure.percentile($0, 0.5) }, "p90:", parts.map { Measure.percentile($0, 0.9) }, "p99:", parts.map { Measure.percentile($0, 0.99) })
        print("SLOW frames:", samples.enumerated().filter { $0.element > 3000 }.map { $0.offset }.prefix(40))
        let p50 = Measure.percentile(samples, 0.5), p99 = Measure.percentile(samples, 0.99)
        let naive = Measure.percentile(baseline, 0.5)
        return BenchRow(
            key: "screen", figure: "full-screen frame, 200x60, 10k rooms, 100 msg/s arriving, p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99))",
            baseline: "regroup + full redraw: \(Measure.ms(naive))",
            target: "< 1 ms", met: p99 < 1_000,
            numbers: ["p50_us": p50, "p99_us": p99, "naive_p50_us": naive, "bytes_per_frame": Double(bytes) / Double(frames)],
            note: String(format: "%.0f bytes written per frame on average", Double(bytes) / Double(frames)))
    }
}
