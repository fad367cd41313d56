import ChatCore
import ChatScreen
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The full-screen client's frame cost: a 200x60 screen, 10k rooms in the
/// side list, 100 messages a second arriving (about 3 per frame at 30
/// frames a second, spread over the open room and 50 busy conversations).
/// One frame = those arrivals through the reducer + render + diff + what
/// the session does after a frame (the reading step, `.drawn(at:)`, and
/// the terminal title, which sums the highlights of every room).
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
        var back = ScreenGrid(width: 200, height: 60)
        var samples: [Double] = [], baseline: [Double] = []
        var bytes = 0
        var title = 0
        var parts: [[Double]] = [[], [], []]
        // CPU time of this thread too: on a shared machine the wall clock
        // also counts time the scheduler gave to other processes.
        var cpu: [Double] = [], naiveCPU: [Double] = []
        for frame in 0..<frames {
            // 100/s at 30 frames/s: 3 or 4 arrivals a frame.
            let arrivals = frame % 3 == 0 ? 4 : 3
            let start = ContinuousClock.now
            let cpuStart = threadCPUMicros()
            for index in 0..<arrivals {
                let busy = NodeNumber(rawValue: UInt64(2 + (frame * 7 + index) % 50))!
                let room: RoomID = index == 0 ? .publicRoom : .direct(busy)
                _ = ScreenReducer.reduce(&state, .message(message(room: room, from: busy), name: "peer"))
            }
            let t1 = ContinuousClock.now
            // Double-buffered, as FullScreenSession does.
            let cursor = ScreenRenderer.render(state, into: &back)
            let t2 = ContinuousClock.now
            let output = ScreenDiff.output(from: previous, to: back, cursorRow: cursor.row, cursorColumn: cursor.column)
            swap(&previous!, &back)
            _ = ScreenReducer.reduce(&state, .drawn(at: .milliseconds(33 * frame)))
            title += state.terminalTitle.utf8.count
            samples.append(Measure.micros(ContinuousClock.now - start))
            cpu.append(threadCPUMicros() - cpuStart)
            parts[0].append(Measure.micros(t1 - start)); parts[1].append(Measure.micros(t2 - t1)); parts[2].append(Measure.micros(ContinuousClock.now - t2))
            bytes += output.utf8.count

            let naiveStart = ContinuousClock.now
            let naiveCPUStart = threadCPUMicros()
            let groups = grouping.group(Array(state.side.entries.values), by: { $0.lastActivity })
            let rendered = ScreenRenderer.render(state)
            let full = ScreenDiff.output(from: nil, to: rendered.grid, cursorRow: rendered.cursorRow, cursorColumn: rendered.cursorColumn)
            baseline.append(Measure.micros(ContinuousClock.now - naiveStart))
            naiveCPU.append(threadCPUMicros() - naiveCPUStart)
            precondition(!groups.isEmpty && !full.isEmpty)
        }
        let p50 = Measure.percentile(samples, 0.5), p99 = Measure.percentile(samples, 0.99)
        let cpu50 = Measure.percentile(cpu, 0.5), cpu99 = Measure.percentile(cpu, 0.99)
        let naive = Measure.percentile(baseline, 0.5), naiveCPU50 = Measure.percentile(naiveCPU, 0.5)
        let split = parts.map { Measure.ms(Measure.percentile($0, 0.5)) }
        return BenchRow(
            key: "screen", figure: "full-screen frame, 200x60, 10k rooms, 100 msg/s arriving: CPU p50 / p99 (wall p50 / p99)",
            value: "\(Measure.ms(cpu50)) / \(Measure.ms(cpu99)) (\(Measure.ms(p50)) / \(Measure.ms(p99)))",
            baseline: "regroup + fresh grid + full redraw: \(Measure.ms(naiveCPU50)) CPU (\(Measure.ms(naive)) wall)",
            target: "< 1 ms p99", met: cpu99 < 1_000 && title > 0,
            numbers: ["cpu_p50_us": cpu50, "cpu_p99_us": cpu99, "p50_us": p50, "p99_us": p99, "naive_p50_us": naive,
                      "naive_cpu_p50_us": naiveCPU50, "bytes_per_frame": Double(bytes) / Double(frames)],
            note: String(format: "%.0f bytes written per frame on average; wall p50 of reduce / render / diff: %@ / %@ / %@",
                         Double(bytes) / Double(frames), split[0], split[1], split[2]))
    }

    /// CPU time this thread has used, in microseconds.
    static func threadCPUMicros() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
    }
}
