import ChatCore
import Foundation
import Synchronization

/// Follows the transport events of `size` services in one process: who is
/// linked to whom, when each link first came up, and when each service
/// first had all the others.
final class MeshWatch: Sendable {
    private struct State {
        var linked: [Set<NodeNumber>]
        /// When service i first saw number n join.
        var firstJoin: [[NodeNumber: ContinuousClock.Instant]]
        var fullAt: [ContinuousClock.Instant?]
        var leaves = 0
    }

    let size: Int
    private let state: Mutex<State>

    init(size: Int) {
        self.size = size
        state = Mutex(State(linked: Array(repeating: [], count: size), firstJoin: Array(repeating: [:], count: size),
                            fullAt: Array(repeating: nil, count: size)))
    }

    /// Reads service `index`'s events until they finish (at its stop).
    func follow(_ events: EventChannel<TransportEvent>, index: Int) async {
        for await event in events {
            let now = ContinuousClock.now
            state.withLock { state in
                switch event {
                case .peerJoined(let peer):
                    state.linked[index].insert(peer.number)
                    if state.firstJoin[index][peer.number] == nil { state.firstJoin[index][peer.number] = now }
                    if state.linked[index].count >= size - 1, state.fullAt[index] == nil { state.fullAt[index] = now }
                case .peerLeft(let number, _):
                    state.linked[index].remove(number)
                    state.leaves += 1
                default:
                    break
                }
            }
        }
    }

    /// Every service linked to every other right now.
    var isFull: Bool { state.withLock { $0.linked.allSatisfy { $0.count >= size - 1 } } }

    /// When the last service first had all the others (nil: not yet).
    var meshAt: ContinuousClock.Instant? {
        state.withLock { state in
            state.fullAt.contains(where: { $0 == nil }) ? nil : state.fullAt.compactMap { $0 }.max()
        }
    }

    var leaves: Int { state.withLock { $0.leaves } }

    /// Links per service, fewest and most.
    var linkRange: (min: Int, max: Int) {
        state.withLock { state in (state.linked.map(\.count).min() ?? 0, state.linked.map(\.count).max() ?? 0) }
    }

    /// For every pair, the time from `startedAt` of the later-started of
    /// the two to the link coming up (the later of the two sides' join
    /// events): how long a pair took once both nodes ran.
    func pairDelays(numbers: [NodeNumber], startedAt: [ContinuousClock.Instant]) -> [Double] {
        state.withLock { state in
            var delays: [Double] = []
            for a in 0..<size {
                for b in (a + 1)..<size {
                    guard let ab = state.firstJoin[a][numbers[b]], let ba = state.firstJoin[b][numbers[a]] else { continue }
                    delays.append(Measure.seconds(max(ab, ba) - max(startedAt[a], startedAt[b])))
                }
            }
            return delays
        }
    }
}
