import ChatCore
import Synchronization

/// The names the node's peers are shown by (`bob`, or `bob#3f2a` when
/// shared), readable by front ends without waiting for the node: under a
/// flood, asking the node actor for each message's sender name queued every
/// event behind the node's work. The node publishes its directory and
/// identity here whenever either changes (joins, leaves, renames: rare), so
/// a name read here is the node's current one, as the hop gave.
final class NameBook: Sendable {
    private struct Entries: Sendable {
        var directory: PeerDirectory
        var identity: NodeIdentity
    }

    private let entries: Mutex<Entries>

    init(identity: NodeIdentity) {
        entries = Mutex(Entries(directory: PeerDirectory(), identity: identity))
    }

    func publish(directory: PeerDirectory, identity: NodeIdentity) {
        entries.withLock { $0 = Entries(directory: directory, identity: identity) }
    }

    func displayName(for number: NodeNumber, nickname: String) -> String {
        // Copied out (two references), so the clash check runs unlocked.
        let current = entries.withLock { $0 }
        if number == current.identity.number { return current.identity.nickname }
        return current.directory.displayName(for: number, nickname: nickname, localIdentity: current.identity)
    }

    /// The name `number`'s nickname looks like without being it (UTS #39
    /// skeletons: Cyrillic `аlice` beside `alice`), if any.
    func looksLike(_ number: NodeNumber) -> String? {
        let current = entries.withLock { $0 }
        if number == current.identity.number { return nil }
        return current.directory.looksLike(number, localIdentity: current.identity)
    }
}
