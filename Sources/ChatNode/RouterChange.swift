import ChatCore

/// A change to the chat models made outside a step (the reader opens or
/// leaves a room, reads it, renames the node): a value, so a step that
/// commits meanwhile can take it on its copy before that copy is adopted
/// (`NodeCore.change`), and a test can compare it.
enum RouterChange: Sendable, Equatable {
    /// `room` is being read; `previous`, if another room, no longer.
    case activate(RoomID, previous: RoomID?)
    case deactivate(RoomID)
    /// The store's unread count for `room` (`/read`, `/unread`).
    case syncUnread(RoomID, count: Int)
    case rename(NodeIdentity)

    /// Applies the change; returns the chat events it says.
    func apply(to router: inout MessageRouter) -> [ChatEvent] {
        switch self {
        case .activate(let room, let previous):
            if let previous, previous != room { Self.deactivate(previous, in: &router) }
            switch room {
            case .publicRoom: return router.publicChat.activate()
            case .direct(let peer): return router.directChat.activate(peer)
            }
        case .deactivate(let room):
            Self.deactivate(room, in: &router)
            return []
        case .syncUnread(let room, let unread):
            switch room {
            case .publicRoom:
                guard router.publicChat.unreadCount != unread else { return [] }
                router.publicChat.restore([], unreadCount: unread)
            case .direct(let peer):
                guard let conversation = router.directChat.conversation(with: peer),
                      conversation.log.unreadCount != unread else { return [] }
                if unread == 0 {
                    _ = router.directChat.markRead(peer)
                } else {
                    router.directChat.restore(peer: peer, peerNickname: conversation.peerNickname,
                                              state: conversation.state, unreadCount: unread)
                }
            }
            return [.unreadChanged(room, count: unread)]
        case .rename(let identity):
            router.identity = identity
            return []
        }
    }

    private static func deactivate(_ room: RoomID, in router: inout MessageRouter) {
        switch room {
        case .publicRoom: router.publicChat.deactivate()
        case .direct(let peer): router.directChat.deactivate(peer)
        }
    }
}
