import ChatCore
import Foundation
import Synchronization

/// A clock tests move by hand: nothing happens until `advance` is called.
public final class ManualClock: ChatClock {
    private struct State {
        var wall: Date
        var uptime: Duration
    }
    private let state: Mutex<State>

    public init(now: Date = Date(timeIntervalSince1970: 1_732_147_200), uptime: Duration = .zero) {
        state = Mutex(State(wall: now, uptime: uptime))
    }

    public func now() -> Date { state.withLock { $0.wall } }

    public func uptime() -> Duration { state.withLock { $0.uptime } }

    /// Moves both wall time and uptime forward.
    public func advance(by duration: Duration) {
        state.withLock {
            $0.uptime += duration
            $0.wall = $0.wall.addingTimeInterval(duration.seconds)
        }
    }

    /// Sets the wall clock alone (a clock step, a time zone test).
    public func setWallClock(_ date: Date) {
        state.withLock { $0.wall = date }
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
