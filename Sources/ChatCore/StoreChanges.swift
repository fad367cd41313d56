/// Everything one node step writes, committed by `ChatStore.commit(_:)` in
/// one transaction: all of it or none of it. The node computes this from
/// its current state, commits it, and only then changes its memory (see
/// ChatNode+Pipeline.swift).
public struct StoreChanges: Sendable {
    /// Messages to insert; ids already stored are skipped (first copy wins).
    public var messages: [Message] = []
    /// Delivery states of outgoing DMs, applied after `messages` (so a DM
    /// and its "queued" land together). Moves forward only.
    public var deliveries: [MessageID: DeliveryState] = [:]
    /// DM conversations whose nickname or request state changed.
    public var conversations: [NodeNumber: ConversationRow] = [:]
    /// Read markers to move forward (never back), applied after `messages`.
    public var readMarkers: [RoomID: HistoryCursor] = [:]
    /// Node settings (the meta table), e.g. a peer's catch-up cursor,
    /// committed with the page it belongs to.
    public var settings: [String: String] = [:]
    /// Of `messages`, those that join the pool unknown authors share
    /// (ChatStore+StoragePool.swift); the others are kept outside it.
    public var pooled: Set<MessageID> = []
    /// The pool's budget in counted bytes (`StorageUsage`): past it, its
    /// oldest messages age out in this commit. Nil: no budget.
    public var poolBudget: Int?
    /// Set when `messages` holds the user's own (their sends, DMs of their
    /// conversations): what else may age out if the files are full
    /// (`AgeingOrder`). Nil: only the pool.
    public var ageingOrder: AgeingOrder?
    /// Authors known now whose pooled messages leave the pool.
    public var unpooled: Set<NodeNumber> = []
    /// This node's clock (ms) when the step was planned: an author's
    /// first seen, if this is its first stored message. Nil: the wall clock.
    public var now: Int64?

    public init() {}

    public var isEmpty: Bool {
        messages.isEmpty && deliveries.isEmpty && conversations.isEmpty && readMarkers.isEmpty && settings.isEmpty
            && unpooled.isEmpty
    }

    /// Whether this commit holds nothing but `delivered` marks: the one
    /// write a file store commits without its own fsync. A lost mark is
    /// repaired by the protocol: the DM is still in the outbox, resent
    /// after a restart, and the receiver, who stored it, acknowledges it
    /// again without storing it twice (ChatStore.docc/Durability.md).
    /// Anything else in the commit makes it wait for the disk.
    public var holdsOnlyDeliveredMarks: Bool {
        !deliveries.isEmpty && deliveries.values.allSatisfy { $0 == .delivered }
            && messages.isEmpty && conversations.isEmpty && readMarkers.isEmpty && settings.isEmpty && unpooled.isEmpty
    }

    /// Moves `room`'s marker to `cursor` if that is further on than what is planned.
    public mutating func markRead(_ room: RoomID, upTo cursor: HistoryCursor) {
        if let planned = readMarkers[room], planned >= cursor { return }
        readMarkers[room] = cursor
    }

    /// Plans `state` for `id` unless a later state is already planned.
    public mutating func setDelivery(_ state: DeliveryState, for id: MessageID) {
        if let planned = deliveries[id], !planned.canMove(to: state) { return }
        deliveries[id] = state
    }
}

/// A DM conversation's row in the rooms table.
public struct ConversationRow: Hashable, Sendable {
    public var nickname: String
    public var state: DMState
    public init(nickname: String, state: DMState) {
        self.nickname = nickname
        self.state = state
    }
}

/// What a commit did.
public struct StoreCommitResult: Sendable {
    /// Ids of `messages` that were new (the others were stored before).
    public var added: Set<MessageID> = []
    /// Unread counts after the commit's read-marker moves, and of the
    /// rooms messages aged out of.
    public var unread: [RoomID: Int] = [:]
    /// Messages this commit aged out (deleted), per room: the pool's, and
    /// for the user's own messages others' (`AgeingOrder`).
    public var agedOut: [RoomID: [MessageID]] = [:]
    public init() {}
}
