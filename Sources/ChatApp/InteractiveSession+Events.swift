import ChatCore
import ChatNode

/// What the console prints when something happens on the node.
extension InteractiveSession {
    public func handle(_ event: NodeEvent) async {
        switch event {
        case .message(let message):
            await show(message)
        case .dmRequest(let peer, let message):
            // One line for a request: its text is shown here, not again.
            if requestsShown.count >= 256 { requestsShown.removeAll() }
            requestsShown.insert(message.id)
            let name = node.displayName(for: peer.number, nickname: peer.nickname)
            screen.write(renderer.dmRequest(from: name, text: message.content))
            await executor.markShown(message)
        case .dmState(let peer, _, let state):
            if let line = renderer.dmState(state, peer: await name(of: peer)) { screen.write(line) }
        case .delivery(let id, let room, let state):
            guard let peer = room.peer else { return }
            let final = state == .delivered || state == .failed || state == .discarded
            let shown = final ? waiting.removeValue(forKey: id) : waiting[id]
            // Sent is news only for a DM that was shown as queued.
            if state == .sent {
                guard shown?.queued == true else { return }
                waiting[id]?.queued = false
            }
            if let line = renderer.delivery(state, peer: await name(of: peer), preview: shown?.preview) { screen.write(line) }
        case .caughtUp(let peer, let count):
            let held = lateHeld > 0 ? "; \(lateHeld) left unread: /history #public" : ""
            screen.write(renderer.notice("caught up on \(count) missed message\(count == 1 ? "" : "s") from \(renderer.safe(await name(of: peer)))\(held)"))
            lateShown = 0
            lateHeld = 0
        case .peerJoined(let peer):
            let previous = nameHolders.record(peer.nickname, number: peer.number)
            let linked = await node.peers().count
            let keyNotice = keyNoticeFollows(peer.number)
            screen.write(renderer.peerJoined(peer.nickname, tag: peer.number.shortTag, address: peer.address,
                                             formerTag: keyNotice == nil ? previous?.shortTag : nil, linked: linked, keyChanged: keyNotice == false))
        case .peerLeft(let peer, let reason):
            screen.write(renderer.peerLeft(peer.nickname, tag: peer.number.shortTag, reason: reason))
        case .peerUpdated(let peer, let previous):
            let former = nameHolders.record(peer.nickname, number: peer.number)
            if let previous, previous.nickname != peer.nickname {
                // A changed key has its own notice (or, said before, a short mark here).
                let different = switch keyNoticeFollows(peer.number) {
                case true?: ""
                case false?: " (⚠ key changed: /whois \(renderer.safe(peer.nickname)))"
                case nil: former.map { " (a different \(renderer.safe(peer.nickname)) than #\($0.shortTag) before)" } ?? ""
                }
                screen.write(renderer.notice("\(renderer.safe(previous.nickname))#\(peer.number.shortTag) is now known as \(renderer.bold(renderer.safe(peer.nickname)))\(different)"))
            }
        case .storage(let failure):
            screen.write(failure.map { renderer.error("cannot store history: \(renderer.safe($0))") } ?? renderer.notice("history is stored again"))
        case .peerQuota(let peer, let nickname, let quota):
            let name = node.displayName(for: peer, nickname: nickname)
            screen.write(renderer.error("not storing more from \(renderer.safe(name)): it reached its share of the history (\(quota) bytes)"))
        case .keyChanged(let change):
            if keyChangesShown.count >= 4096 { keyChangesShown.removeAll() }
            keyChangesShown.insert(change.peer.number)
            screen.write(renderer.keyChanged(change, name: node.displayName(for: change.peer.number, nickname: change.peer.nickname)))
        case .file(let event):
            showFile(event)
        case .unread, .rejected, .started, .stopped:
            break
        }
    }

    /// For a peer whose key is flagged as changed: true when the node's
    /// `keyChanged` notice follows (the first time this run), false when it
    /// was said already; nil for any other peer. The key notice replaces the
    /// join line's "a different alice": one notice, not two.
    private func keyNoticeFollows(_ number: NodeNumber) -> Bool? {
        guard node.trust(of: number)?.state == .changed else { return nil }
        return !keyChangesShown.contains(number)
    }

    /// A message from someone else: printed (then it counts as seen), or,
    /// when the reader is scrolled back with newer pages unloaded, only
    /// announced (printing it would skip the unloaded ones).
    private func show(_ message: Message) async {
        let me = await node.identity
        // Own messages are shown when the command returns, with their state.
        guard message.senderNumber != me.number else { return }
        if requestsShown.remove(message.id) != nil { return }
        if message.room == .publicRoom, !(await executor.filter.matches(stage: message.senderStage)) {
            // Hidden by the reader's own filter: passed over, like in a page.
            await executor.markShown(message)
            return
        }
        let conversation = message.room.peer == nil ? nil : await name(of: message.senderNumber)
        if await executor.place(message) == .storeAndAnnounce {
            screen.write(renderer.notice("new message in \(await roomLabel(message.room)); /more down to read on"))
            return
        }
        if message.timestamp < startedAt - 5_000 {
            // Catch-up (written well before this session): a few missed
            // messages are printed as they come; a flood is not, and stays
            // unread for /history. Said once, so nothing is held silently.
            guard lateShown < Self.lateLimit else {
                if lateHeld == 0 {
                    screen.write(renderer.notice("more missed messages arriving; the rest stay unread"))
                }
                lateHeld += 1
                return
            }
            lateShown += 1
        }
        let name = ConsoleRenderer.marked(node.displayName(for: message.senderNumber, nickname: message.senderNickname),
                                          node.trust(of: message.senderNumber))
        screen.write(renderer.message(message, name: name, conversation: conversation, state: nil))
        await executor.markShown(message)
    }
}
