import ChatCore
import ChatNode
import ChatScreen
import Foundation

extension FullScreenSession {
    /// Performs what the reducer asked for; results come back as events.
    func perform(_ effects: [ScreenEffect]) async {
        for effect in effects {
            do {
                try await perform(effect)
            } catch {
                await apply(.notice(await describe(error)))
            }
        }
    }

    /// Own DMs on a loaded page show their state (held, queued, ...).
    private func applyDeliveries(_ page: HistoryPage) async {
        for (id, delivery) in await node.deliveryStates(in: page).sorted(by: { $0.key < $1.key }) { await apply(.delivery(id, delivery)) }
    }

    private func perform(_ effect: ScreenEffect) async throws(NodeError) {
        switch effect {
        case .open(let room):
            // Not `node.activate`: it marks the whole room read in the store,
            // and here the marker moves only as far as the screen showed.
            let page = try await node.openHistory(room, limit: ScreenReducer.pageSize)
            let title = if let peer = room.peer { await name(of: peer) } else { "public" }
            await apply(.opened(page, title: title))
            await applyDeliveries(page)
        case .loadPage(let room, let direction, let cursor):
            let page = switch direction {
            case .older: try await node.historyPage(room, before: cursor, limit: ScreenReducer.pageSize)
            case .newer: try await node.historyPage(room, after: cursor, limit: ScreenReducer.pageSize)
            }
            await apply(.pageLoaded(page, direction))
            await applyDeliveries(page)
        case .markRead(let room, let cursor):
            let unread = try await node.markRead(room, upTo: cursor)
            await apply(.unread(room, unread))
        case .markShown(let room, let first, let cursor):
            let unread = try await node.markRead(room, shownFrom: first, upTo: cursor)
            await apply(.unread(room, unread))
        case .send(let text, let room):
            switch room {
            case .publicRoom: try await node.sendPublic(text)
            case .direct(let peer):
                try await node.sendDirect(text, to: peer)
                if !state.peers.keys.contains(peer) {
                    await apply(.notice("\(await name(of: peer)) is offline; queued"))
                }
            }
        case .openAround(let room, let cursor):
            let page = try await node.openHistory(room, around: cursor, limit: ScreenReducer.pageSize)
            let title = room.peer == nil ? "public" : state.side[room]?.title ?? "\(room)"
            await apply(.openedAround(page, title: title, at: cursor))
            await applyDeliveries(page)
        case .command(let line):
            await run(line)
        case .ring:
            ring()
        case .quit:
            restore()
            quit()
        }
    }

    /// A `/command` through the same executor the line console uses.
    func run(_ line: String) async {
        if line == "/log" {
            await apply(.panelFromEnd(logLines()))
            return
        }
        let command: ControlCommand
        do {
            guard let parsed = try ConsoleCommandParser.parse(line) else { return }
            command = parsed
        } catch {
            await apply(.notice(error.message))
            return
        }
        let before = await executor.openRoom
        do {
            let result = try await executor.run(command)
            let renderer = ConsoleRenderer(useColor: false)
            switch result {
            case .quit:
                await perform([.quit])
                return
            case .sent, .history:
                break
            case .done:
                await apply(.notice("done: \(line)"))
            case .help:
                // The commands first, as a short terminal cuts the panel's
                // end; the keys have a legend of their own (F1).
                await apply(.panel(["commands (F1, or ? on an empty line, lists the keys):"]
                    + HelpText.consoleHelp.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) + [""] + Self.keyHelp))
            case .peers(let listings):
                await apply(.panel(listings.isEmpty ? ["no peers linked"] : renderer.peers(listings)))
            case .whois(let whois):
                await apply(.panel(renderer.whois(whois)))
            case .verification(let result, let name):
                if result.confirmed { await apply(.verified(node.verifiedNodes())) }
                await apply(.panel(renderer.verification(result, name: name)))
            case .discarded(let count, let name):
                await apply(.notice(renderer.plainDiscarded(count, name: name)))
            case .rooms(let rooms):
                await apply(.panel(renderer.rooms(rooms, emptyText: "nothing unread")))
            case .roomGroups(let groups):
                await apply(.panel(renderer.roomGroups(groups)))
            case .read(let room, let unread):
                await apply(.unread(room, unread))
                await apply(.notice(unread == 0 ? "all read" : "\(unread) unread after the marker"))
            case .filter(let filter):
                await apply(.notice("filter: \(filter)"))
            case .stats(let counters, let transport):
                await apply(.panel(renderer.stats(counters, transport: transport)))
            case .fileOffered(let transfer):
                await apply(.notice("offered \(TerminalText.sanitize(transfer.name)) to \(TerminalText.sanitize(transfer.peerNickname)) as #\(ConsoleRenderer.shortID(transfer.id))"))
            case .files(let transfers):
                await apply(.panel(renderer.files(transfers)))
            case .search(let results, let first):
                await apply(searchEvent(results, first: first))
            }
        } catch {
            await apply(.notice(await describe(error)))
        }
        // /open and /history move the screen to the room they name.
        let after = await executor.openRoom
        if after != before {
            await perform([.open(after)])
        }
        if case .nick = command { await apply(.identity(name: await node.identity.nickname, fingerprint: state.fingerprint, groupSecret: state.groupSecret)) }
    }

    /// The `/log` view: the recent log lines (the panel opens at the
    /// newest and scrolls back), under where the whole log is kept.
    func logLines() -> [String] {
        let lines = log?.recentLines ?? []
        let header = log?.filePath.map { "log (\($0), older in \($0).1):" } ?? "log (kept in memory only: no data directory):"
        guard !lines.isEmpty else { return [header, "  nothing logged"] }
        return [header] + lines.map { "  " + $0 }
    }

    static let keyHelp = [
        "keys:       F1 (or ? on an empty line) lists them · Enter sends · Ctrl-C quits",
        "            · /log shows the log (warnings also on the status line)",
        "search:     /search WORDS lists matches in all rooms, newest first; arrows",
        "            choose, Enter opens the room there, Esc closes, Ctrl-R lists again",
        "reading:    a message is read once it has been on screen in full for half a",
        "            second; the ── unread ── line marks the first you have not seen",
        "attention:  DMs and messages naming you ring the bell (--no-bell), count in",
        "            the terminal title, and show as !N in the list (plain unread: N);",
        "            on a narrow terminal the status line says unread #public @DMs !for-you",
        "",
    ]
}
