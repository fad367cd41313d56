import Foundation

/// How late this process has been running its own timer lately, and the
/// extra time that gives a handshake (the handshake deadline policy under
/// load, issue 29).
///
/// On a saturated host (a thousand nodes on two cores, load 1,400) a
/// process runs seconds late: the peer's handshake message waits unread in
/// the socket, or the peer, as starved as this process, has not sent it
/// yet. The fixed timeout (3 s without progress) then closed handshakes
/// that were only slow: 18,147 in a 20 s idle window, each a link the
/// membership dialled again, which kept the host saturated. A timer that
/// wakes late is the local evidence: while it does, a handshake gets
/// `factor` times the recent lateness on top of its timeout, up to
/// `cap`. A peer that is really gone still fails: its connect is refused
/// or reset at once, and a silent one is cut at the stretched deadline.
///
/// The lateness that counts is the largest seen, halving every
/// `halfLife`, so one slow moment is forgotten within a minute or so and
/// an idle host's handshakes keep their usual timeout.
///
/// Pure: times come in as arguments (the transport's clock).
struct SchedulingLag: Sendable, Hashable {
    /// A wake-up later than this is lag (below it: ordinary timer slack).
    static let noise: Duration = .milliseconds(100)
    static let halfLife: Duration = .seconds(10)
    /// The allowance is this many times the lag...
    static let factor = 3.0
    /// ...and at most this much.
    static let cap: Duration = .seconds(12)

    private(set) var peak: Duration = .zero
    private(set) var peakAt: Duration = .zero

    /// The timer was due at `due` and ran at `now`.
    mutating func woke(at now: Duration, due: Duration) {
        let late = now - due
        guard late > Self.noise, late > lag(at: now) else { return }
        peak = late
        peakAt = now
    }

    /// The recent lateness at `now`: the peak, halved every `halfLife` since.
    func lag(at now: Duration) -> Duration {
        guard peak > .zero else { return .zero }
        let halves = max(0, (now - peakAt) / Self.halfLife)
        guard halves < 20 else { return .zero }
        return peak * pow(0.5, halves)
    }

    /// What a handshake gets on top of its timeout at `now`.
    func handshakeAllowance(at now: Duration) -> Duration {
        let lag = lag(at: now)
        guard lag > Self.noise else { return .zero }
        return min(lag * Self.factor, Self.cap)
    }
}
