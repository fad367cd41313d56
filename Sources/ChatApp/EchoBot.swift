import ChatCore
import ChatNode

/// `lanchat bot echo`: answers every DM with "echo: <text>", marked
/// automatic. It never answers an automatic message, so two bots cannot
/// keep each other talking.
public actor EchoBot: FrontEnd {
    private let node: ChatNode
    private let logger: ChatLogger
    public private(set) var answered = 0

    public init(node: ChatNode, logger: ChatLogger) {
        self.node = node
        self.logger = logger
    }

    public nonisolated var readsInput: Bool { false }

    public func started(port: Int) async {
        let number = await node.identity.number
        logger.notice("echo bot up on TCP port \(port), node \(number)")
    }

    public func handle(_ event: NodeEvent) async {
        guard case .message(let message) = event, case .direct(let peer) = message.room,
              message.senderNumber == peer, !message.automatic else { return }
        let reply = Self.reply(to: message.content)
        do {
            try await node.sendDirect(reply, to: peer, automatic: true)
            answered += 1
        } catch {
            logger.warning("echo to \(peer) failed: \(error)")
        }
    }

    /// "echo: " plus as much of `text` as fits in the 240-character limit.
    static func reply(to text: String) -> String {
        let prefix = "echo: "
        return prefix + String(text.prefix(ChatLimits.maxMessageCharacters - prefix.count))
    }
}
