import ChatCore
import ChatNode

/// A way of using a running node: the console, JSON lines, or a bot. The app
/// feeds it the node's events and, if it wants them, stdin lines, and stops
/// the node when it asks to quit or a signal arrives.
public protocol FrontEnd: Sendable {
    /// Whether stdin lines go to `handle(line:)`; bots ignore stdin.
    var readsInput: Bool { get }
    /// Called once after the node started.
    func started(port: Int) async
    func handle(_ event: NodeEvent) async
    /// Returns false to quit.
    func handle(line: String) async -> Bool
    /// A line of `bytes` bytes over `limit` was skipped, not handled.
    func refuseLine(bytes: Int, limit: Int) async
    /// Work of its own (a chatter loop); returns when done or cancelled.
    func background() async
}

extension FrontEnd {
    public func handle(line: String) async -> Bool { true }
    public func refuseLine(bytes: Int, limit: Int) async {}
    public func background() async {}
}
