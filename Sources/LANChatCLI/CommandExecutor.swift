import ChatCore
import ChatNode

/// What a command produced, for the front end to show.
public enum CommandResult: Sendable {
    case sent(Message)
    case done
    case peers([PeerListing])
    case rooms([RoomOverview])
    case stats(RouterCounters)
    case help
    case quit
}

/// A peer with the name to show for it (`bob`, or `bob#3f2a` when shared).
public struct PeerListing: Hashable, Sendable {
    public var info: PeerInfo
    public var displayName: String
}

/// Runs `ControlCommand`s against a node and keeps the one piece of session
/// state the front ends share: which room plain text goes to.
public struct CommandExecutor: Sendable {
    public let node: ChatNode
    public private(set) var openRoom = RoomID.publicRoom

    public init(node: ChatNode) { self.node = node }

    public mutating func run(_ command: ControlCommand) async throws(NodeError) -> CommandResult {
        switch command {
        case .say(let text, let roomName, let automatic):
            let room = try await roomName.asyncMap { name throws(NodeError) in try await node.room(named: name) } ?? openRoom
            switch room {
            case .publicRoom: return .sent(try await node.sendPublic(text, automatic: automatic))
            case .direct(let peer): return .sent(try await node.sendDirect(text, to: peer, automatic: automatic))
            }
        case .dm(let name, let text, let automatic):
            return .sent(try await node.sendDirect(text, to: name, automatic: automatic))
        case .accept(let name):
            try await node.accept(name)
            return .done
        case .decline(let name):
            try await node.decline(name)
            return .done
        case .open(let name):
            let room = try await node.room(named: name)
            await node.activate(room)
            openRoom = room
            return .done
        case .peers:
            var listings: [PeerListing] = []
            for peer in await node.peers() {
                listings.append(PeerListing(info: peer, displayName: await node.displayName(for: peer.number, nickname: peer.nickname)))
            }
            return .peers(listings)
        case .rooms:
            return .rooms(await node.rooms())
        case .unread:
            return .rooms(await node.rooms().filter { $0.unread > 0 })
        case .nick(let name):
            try await node.rename(nickname: name)
            return .done
        case .stats:
            return .stats(await node.counters())
        case .help:
            return .help
        case .quit:
            return .quit
        }
    }
}

extension Optional {
    /// `map` for an async, typed-throwing transform.
    func asyncMap<U, E: Error>(_ transform: (Wrapped) async throws(E) -> U) async throws(E) -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
