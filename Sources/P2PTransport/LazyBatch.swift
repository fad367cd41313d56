/// What the poll thread does with one wake-up's reports when some may wait
/// (`PollLoop.holdLazyReports`), as a pure value on a millisecond clock it
/// is told: a wake-up that reports only the lazy registration is held for
/// up to the window, and goes out with the next wake-up's reports or when
/// the window ends, whichever is first. Anything else goes out at once.
///
/// The lazy descriptor is one-shot, so while its report is held it is
/// disarmed and no second report of it can come: what arrives meanwhile
/// waits in the kernel and is read in one go.
struct LazyBatch<Report> {
    private var held: [Report] = []
    private var heldUntil = 0

    /// How long the thread may sleep (milliseconds; nil: until something
    /// happens).
    func timeout(now: Int) -> Int? { held.isEmpty ? nil : max(0, heldUntil - now) }

    /// A wake-up's `reports` (none: the wait timed out). Returns what to hand
    /// over now, nil while holding. `isLazy`: a report that may wait.
    mutating func woke(with reports: [Report], now: Int, window: Int, isLazy: (Report) -> Bool) -> [Report]? {
        if held.isEmpty, window > 0, !reports.isEmpty, reports.allSatisfy(isLazy) {
            held = reports
            heldUntil = now + window
            return nil
        }
        defer { held = [] }
        let batch = held + reports
        return batch.isEmpty ? nil : batch
    }
}
