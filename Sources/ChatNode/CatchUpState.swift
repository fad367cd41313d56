import ChatCore

/// One catch-up request in flight to a peer.
struct CatchUpRequest: Sendable, Equatable {
    var id: MessageID
    /// Where to continue in the peer's numbering; nil on first contact.
    var cursor: CatchUpCursor?
    /// Messages asked for (a full page, or a probe's few).
    var limit = NodeLimits.catchUpPageSize
    /// Its reply is in a step on its way to the store: no timeout.
    var answered = false
}

/// The asking side of catch-up as a value: the request outstanding per
/// peer, where we are in each peer's numbering, and the round that picks
/// whom to ask (`CatchUpRound`). No clock, store or socket: the node tells
/// it what happened and performs what it returns.
///
/// A reply is planned without changing anything (`planReply`). The node
/// then carries the plan to the store: `pagesPlanned` once the step is
/// planned (the replies arrived, so their timeouts no longer apply while
/// they commit), `adopt` after the commit, or `pageFailed` if the commit
/// fails (the page is asked again).
struct CatchUpState: Sendable {
    private(set) var round = CatchUpRound()
    /// The one request per peer whose reply we wait for; a reply that
    /// answers none of these is refused.
    private(set) var outstanding: [NodeNumber: CatchUpRequest] = [:]
    /// Per peer, the last position in its store we caught up to (also in
    /// the store's meta table, committed with each page).
    private(set) var cursors: [NodeNumber: CatchUpCursor] = [:]
    /// Per peer, the last request given up at its timeout. Its reply was
    /// asked for, so it is merged if it comes after all (once, without
    /// moving the cursor): under a flood every reply can queue past the
    /// timeout, and refusing each one would never catch up.
    private(set) var late: [NodeNumber: CatchUpRequest] = [:]

    /// The meta-table key of `peer`'s cursor.
    static func key(_ peer: NodeNumber) -> String { "catchup.\(peer.rawValue)" }

    // MARK: The round

    /// `peer` linked: it joins the round (asked now, or later).
    mutating func peerLinked(_ peer: NodeNumber) -> CatchUpAsk? { round.peerLinked(peer) }

    /// `peer`'s link went down: its request is void, and what it owed is
    /// asked of the next peer.
    mutating func peerLeft(_ peer: NodeNumber) -> CatchUpAsk? {
        outstanding[peer] = nil
        late[peer] = nil
        return round.peerLeft(peer)
    }

    /// Live messages from `peer` were lost to a failed commit: its chain runs in full.
    mutating func recover(_ peer: NodeNumber) -> CatchUpAsk? { round.recover(peer) }

    // MARK: Asking

    /// Whether `peer`'s cursor must be read from the store before asking.
    func needsStoredCursor(_ peer: NodeNumber) -> Bool { cursors[peer] == nil }

    /// The cursor read from the store, unless a page committed meanwhile
    /// (the read awaited) already moved it on.
    mutating func restoreCursor(_ cursor: CatchUpCursor?, for peer: NodeNumber) {
        guard cursors[peer] == nil, let cursor else { return }
        cursors[peer] = cursor
    }

    /// The request that performs `ask`: from our cursor for the peer, a
    /// full page or a probe's few.
    func request(for ask: CatchUpAsk, id: MessageID) -> CatchUpRequest {
        CatchUpRequest(id: id, cursor: cursors[ask.peer], limit: Self.limit(ask.mode))
    }

    /// `request` goes out to `peer` under `id`, as the one outstanding
    /// (any earlier one is void). Returns it as sent.
    mutating func send(_ request: CatchUpRequest, to peer: NodeNumber, id: MessageID) -> CatchUpRequest {
        var request = request
        request.id = id
        request.answered = false
        outstanding[peer] = request
        return request
    }

    /// Whether `request` is still the one outstanding for `peer` (a page
    /// whose commit failed is asked again only then).
    func isOutstanding(_ request: CatchUpRequest, for peer: NodeNumber) -> Bool {
        outstanding[peer]?.id == request.id
    }

    /// What a request's timeout means.
    enum Timeout: Sendable, Equatable {
        /// Answered, replaced, or void: nothing to do.
        case ignored
        /// Given up (a late reply is still merged once, `late`); the
        /// round asks `next`, if anyone.
        case gaveUp(next: CatchUpAsk?)
    }

    /// Request `id` to `peer` was not answered in time.
    mutating func timedOut(_ id: MessageID, from peer: NodeNumber) -> Timeout {
        guard let request = outstanding[peer], request.id == id, !request.answered else { return .ignored }
        outstanding[peer] = nil
        late[peer] = request
        return .gaveUp(next: round.timedOut(peer))
    }

    // MARK: Replies

    /// Plans a history reply from `peer`: nil if it answers no request we
    /// wait for (unsolicited, or its request is answered by a reply in
    /// this step or the step planned before: `answeredEarlier` holds
    /// those requests' ids). Changes
    /// nothing: the node merges the messages and commits the cursor.
    /// A reply to the request given up last (`late`) is merged without
    /// its cursor or a next page: the round has moved on from it.
    func planReply(_ reply: P2PPayload, from peer: NodeNumber, answeredEarlier: Set<MessageID>) -> CatchUpPage? {
        guard let refId = reply.refId, !answeredEarlier.contains(refId) else { return nil }
        if let given = late[peer], reply.refId == given.id {
            return CatchUpPage(peer: peer, request: given, cursor: nil, next: nil)
        }
        guard let request = outstanding[peer], reply.refId == request.id else { return nil }
        var cursor = reply.catchUp
        // A cursor we could not store or ask from again is dropped (the
        // page is still merged; the chain ends with it).
        if let given = cursor, given.epoch.utf8.count > CatchUpCursor.maxEpochBytes || given.seq < 0 { cursor = nil }
        let next = reply.more == true && cursor != nil ? CatchUpRequest(id: request.id, cursor: cursor, limit: request.limit) : nil
        return CatchUpPage(peer: peer, request: request, cursor: cursor, next: next)
    }

    /// A planned step holds `pages`: their replies arrived, so their
    /// timeouts no longer apply, even while the pages commit.
    mutating func pagesPlanned(_ pages: [CatchUpPage]) {
        for page in pages {
            if isOutstanding(page.request, for: page.peer) { outstanding[page.peer]?.answered = true }
            if late[page.peer]?.id == page.request.id { late[page.peer] = nil }
        }
    }

    /// `page` is committed: the cursor moves on, the request is done, and
    /// the round says what follows. A page whose request was replaced
    /// while it committed (the peer left and linked again, and was asked
    /// anew) only moves the cursor, which the store now holds: the newer
    /// request stays outstanding, so its reply is not refused as
    /// unsolicited, and the round goes on from that one.
    mutating func adopt(_ page: CatchUpPage) -> CatchUpFollowUp {
        let peer = page.peer
        if let cursor = page.cursor { cursors[peer] = cursor }
        guard isOutstanding(page.request, for: peer) else { return .none }
        outstanding[peer] = nil
        switch round.pageMerged(from: peer, fresh: page.fresh, more: page.next != nil) {
        case .nextPage(let mode):
            guard var next = page.next else { return .none }
            next.limit = Self.limit(mode)
            return .send(next, to: peer)
        case .ask(let ask):
            return .ask(ask)
        case .stop:
            return .none
        }
    }

    private static func limit(_ mode: CatchUpRound.Mode) -> Int {
        mode == .full ? NodeLimits.catchUpPageSize : NodeLimits.catchUpProbeSize
    }
}

/// A history reply accepted for merging: the request it answers, the
/// peer's cursor after it (nil if the peer gave none we can use), the
/// request for the next page if the peer has more, and how many of its
/// messages were new to us (set by the merge).
struct CatchUpPage: Sendable, Equatable {
    var peer: NodeNumber
    var request: CatchUpRequest
    var cursor: CatchUpCursor?
    var next: CatchUpRequest?
    var fresh = 0
}

/// What the node does once a page is committed.
enum CatchUpFollowUp: Sendable, Equatable {
    /// Send this request (the same peer's next page) under a fresh id.
    case send(CatchUpRequest, to: NodeNumber)
    /// Start on this peer, from our cursor for it.
    case ask(CatchUpAsk)
    case none
}
