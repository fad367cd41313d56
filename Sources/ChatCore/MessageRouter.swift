/// The single place a received frame is dispatched by type: public messages
/// to `PublicChat`, the DM kinds to `DirectChat`, link and delivery frames to
/// the node as `.control`, unknown types counted and skipped. Adding a type
/// touches this file only.
public struct MessageRouter: Sendable {
    public var publicChat: PublicChat
    public var directChat: DirectChat
    public private(set) var counters = RouterCounters()

    public init(identity: NodeIdentity) {
        publicChat = PublicChat(identity: identity)
        directChat = DirectChat(identity: identity)
    }

    public var identity: NodeIdentity {
        get { publicChat.identity }
        set {
            publicChat.identity = newValue
            directChat.identity = newValue
        }
    }

    /// Moves the messages added since the last call into the rooms'
    /// buffers. Call it on a router no copy shares buffers with (right
    /// after adopting a planned copy), so the buffers change in place.
    public mutating func settle() {
        publicChat.settle()
        directChat.settle()
    }

    /// Drops messages the store aged out from `room`'s memory (`RoomLog.forget`).
    public mutating func forget(_ ids: Set<MessageID>, in room: RoomID, unreadCount: Int?) {
        switch room {
        case .publicRoom: publicChat.forget(ids, unreadCount: unreadCount)
        case .direct(let peer): directChat.forget(ids, with: peer, unreadCount: unreadCount)
        }
    }

    /// `room`'s unread count in memory.
    public func unreadCount(in room: RoomID) -> Int {
        switch room {
        case .publicRoom: publicChat.unreadCount
        case .direct(let peer): directChat.conversation(with: peer)?.log.unreadCount ?? 0
        }
    }

    /// What receiving one frame produced: local events and frames to send back
    /// on the same link.
    public struct Result: Sendable, Hashable {
        public var events: [ChatEvent] = []
        public var replies: [P2PPayload] = []
    }

    /// Takes `payload`, received on the link of peer `link`, to the model
    /// that owns its type (as `PublicChat.receive` and `DirectChat.receive`
    /// name the same moment). A frame that breaks a rule yields `.rejected`
    /// and changes nothing else.
    public mutating func receive(_ payload: P2PPayload, from link: NodeNumber, at now: Int64) -> Result {
        counters.received += 1
        guard payload.senderNumber == link else {
            return reject(.spoofedSender(claimed: payload.senderNumber, link: link), from: link)
        }
        do {
            switch payload.type {
            case .publicMessage:
                return Result(events: try publicChat.receive(payload))
            case .directMessage, .dmRequest, .dmAccept, .dmDecline:
                let outcome = try directChat.receive(payload, at: now)
                return Result(events: outcome.events, replies: outcome.replies)
            case .hello, .ack, .leave, .historyRequest, .historyReply, .ping, .pong,
                 .fileOffer, .fileAccept, .fileDecline, .fileCancel, .fileDone:
                return Result(events: [.control(payload)])
            case .unknown(let name):
                counters.unknownType += 1
                return Result(events: [.unknownType(from: link, name: name)])
            }
        } catch {
            return reject(error, from: link)
        }
    }

    private mutating func reject(_ error: ChatError, from link: NodeNumber) -> Result {
        counters.rejected += 1
        return Result(events: [.rejected(from: link, error)])
    }
}

/// How many frames the router saw, and how many it refused or skipped.
public struct RouterCounters: Hashable, Sendable, Codable {
    public var received = 0
    public var rejected = 0
    public var unknownType = 0
}
