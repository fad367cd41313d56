import ChatCore

/// The core's fields under the names the carrier code uses. `_modify`
/// yields the field in place: a mutation through `get`/`set` would copy
/// the whole value (every room's buffer) each time.
extension ChatNode {
    var router: MessageRouter {
        get { core.router }
        _modify { yield &core.router }
    }

    var catchUp: CatchUpState {
        get { core.catchUp }
        _modify { yield &core.catchUp }
    }

    /// Front ends read names from it (`names`): republished on each change.
    var directory: PeerDirectory {
        get { core.directory }
        _modify {
            yield &core.directory
            names.publish(directory: core.directory, identity: core.identity)
        }
    }

    var outbox: Outbox {
        get { core.outbox }
        _modify { yield &core.outbox }
    }

    var activeRoom: RoomID? {
        get { core.activeRoom }
        set { core.activeRoom = newValue }
    }

    var quotaReported: Set<NodeNumber> {
        get { core.quotaReported }
        _modify { yield &core.quotaReported }
    }

    var counters: NodeCounters {
        get { core.counters }
        _modify { yield &core.counters }
    }

    /// Changes the router outside a step (activate, mark read, rename);
    /// a step committing meanwhile takes the change on its copy.
    @discardableResult
    func changeRouter(_ change: RouterChange) -> [ChatEvent] {
        core.change(change)
    }
}
