import ChatCore
import ChatNode
import ChatScreen
import Foundation

/// The full-screen client: node events and keys go through `ScreenReducer`,
/// its effects run against the node here, and frames go to the terminal,
/// diffed and at most ~30 a second.
public actor FullScreenSession: FrontEnd {
    let node: ChatNode
    let locale: Locale
    let quit: @Sendable () -> Void
    var executor: CommandExecutor
    var state: ScreenState
    var terminal: TerminalScreen?
    /// Keys from the terminal's bytes; a lone Escape settles on `clock`.
    var input = KeyInput()
    /// What the terminal shows now; nil forces a full redraw.
    var shown: ScreenGrid?
    var back = ScreenGrid(width: 0, height: 0)
    var frameScheduled = false
    /// Frames, the reading dwell and the bell wait on this clock (its uptime).
    let clock: any ChatClock
    var lastFrame: Duration
    /// The terminal title last written (nil: never).
    var shownTitle: String?
    var lastBell: Duration
    static let frameInterval = Duration.milliseconds(33)
    /// The log the node writes here instead of stderr (`/log`, status line).
    let log: LogBook?
    let bell: Bool
    /// Ask the terminal for mouse reports (`--no-mouse` says no).
    let mouse: Bool

    public init(node: ChatNode, identity: NodeIdentity, locale: Locale, timeZone: TimeZone = .current, clock: any ChatClock = SystemClock(),
                log: LogBook? = nil, bell: Bool = true, mouse: Bool = true, quit: @escaping @Sendable () -> Void) {
        self.node = node
        self.mouse = mouse
        self.locale = locale
        self.quit = quit
        self.log = log
        self.bell = bell
        self.clock = clock
        lastFrame = clock.uptime()
        lastBell = clock.uptime() - .seconds(10)
        executor = CommandExecutor(node: node, clock: clock, timeZone: timeZone, locale: locale)
        let grouping = ChatListGrouping(clock: clock, timeZone: timeZone, locale: locale)
        state = ScreenState(width: 80, height: 24, me: identity.number, myName: identity.nickname, grouping: grouping)
        state.listPaths = { PathListing.candidates(for: $0) }
        state.bell = bell
    }

    public nonisolated var readsInput: Bool { false }

    /// Whether the terminal is in raw mode and this session draws on it.
    public var ownsTerminal: Bool { terminal != nil }

    public func started(port: Int) async {
        // Warnings and errors are a person's business: on the status line.
        log?.onAttention { text in Task { await self.apply(.notice(text + " · /log")) } }
        terminal = TerminalScreen.enter(mouse: mouse)
        // The terminal's own title is saved, to come back on exit.
        terminal?.write(Self.saveTitle)
        if let size = terminal?.size() { state.width = size.width; state.height = size.height }
        state.notice = "TCP port \(port) · F1 keys · Tab next room · PgUp/PgDn scroll · /help · Ctrl-C quits"
        await apply(.verified(node.verifiedNodes()))
        await refreshPeers()
        await refreshRooms()
        await apply(.identity(name: state.myName, fingerprint: nil, groupSecret: nil))
        await perform([.open(.publicRoom)])
    }

    public func handle(_ event: NodeEvent) async {
        switch event {
        case .message(let message):
            let name = node.displayName(for: message.senderNumber, nickname: message.senderNickname)
            var title: String?
            if let peer = message.room.peer, message.senderNumber == state.me {
                title = await self.name(of: peer)
            }
            await apply(.message(message, name: name, roomTitle: title))
            if message.room.peer != nil, message.senderNumber == state.me, let delivery = await node.deliveryState(of: message.id) {
                await apply(.delivery(message.id, delivery))
            }
        case .delivery(let id, _, let delivery):
            await apply(.delivery(id, delivery))
        case .peerJoined(let peer):
            await apply(.verified(node.verifiedNodes()))
            await refreshPeers()
            await refreshRooms()
            await apply(.notice("\(node.displayName(for: peer.number, nickname: peer.nickname)) joined"))
        case .peerLeft(let peer, _):
            await refreshPeers()
            await apply(.notice("\(peer.nickname) left"))
        case .peerUpdated:
            await refreshPeers()
        case .dmRequest(let peer, _):
            // Its text also comes as a .message (counted, ringing, as any DM).
            let name = node.displayName(for: peer.number, nickname: peer.nickname)
            await apply(.notice("\(name) asks to talk: /accept \(name) or /decline \(name)"))
        case .dmState(let peer, let nickname, let dmState):
            // The console's wording, without its colours. The node says the
            // peer's number when it knows no nickname: a name, never that.
            let name = nickname.isEmpty || nickname == "\(peer)" ? await self.name(of: peer) : node.displayName(for: peer, nickname: nickname)
            if let line = ConsoleRenderer(useColor: false).dmState(dmState, peer: name) {
                await apply(.notice(String(line.dropFirst(3))))
            }
        case .storage(let failure):
            await apply(.notice(failure.map { "cannot store history: \(TerminalText.sanitize($0))" } ?? "history is stored again"))
        case .peerQuota(let peer, let nickname, let quota):
            let name = node.displayName(for: peer, nickname: nickname)
            await apply(.notice("not storing more from \(TerminalText.sanitize(name)): it reached its share of the history (\(quota) bytes)"))
        case .file(let event):
            if let notice = ConsoleRenderer.fileNotice(event) {
                await apply(.fileLine(.direct(event.transfer.peer), FileLine(id: event.transfer.id.description, text: notice,
                                                                              pendingOffer: event.isPendingOffer)))
                await apply(.notice(notice))
            }
        case .caughtUp(_, let count):
            await refreshRooms()
            await apply(.notice("caught up on \(count) missed message\(count == 1 ? "" : "s")"))
        case .keyChanged(let change):
            let name = node.displayName(for: change.peer.number, nickname: change.peer.nickname)
            await apply(.keyChanged(.direct(change.peer.number), notice: ConsoleRenderer(useColor: false).keyChangedText(change, name: name)))
        case .stopped:
            restore()
        case .unread, .rejected, .started:
            break
        }
    }

    /// Reads keys and resizes until the reader quits.
    public func background() async {
        guard let terminal else {
            // Raw mode refused (not really a terminal): nothing can be read.
            FileHandle.standardError.write(Data("lanchat: cannot set up the terminal; try --plain\n".utf8))
            quit()
            return
        }
        let resizes = terminal.resizes()
        let resizeTask = Task { for await _ in resizes { await self.resized() } }
        defer { resizeTask.cancel() }
        // Bytes and the pauses that settle a lone ESC, in one stream: the
        // pause waits on the injected clock, not in the reading thread.
        let (events, sink) = AsyncStream.makeStream(of: KeyInputEvent.self)
        let reader = Task {
            for await chunk in TerminalInput.chunks() where !chunk.isEmpty { sink.yield(.bytes(chunk)) }
            sink.finish()
        }
        defer { reader.cancel() }
        for await event in events {
            let keys: [ScreenKey]
            switch event {
            case .bytes(let bytes):
                keys = input.read(bytes, at: clock.uptime())
                if let due = input.pauseDue {
                    Task { [clock] in
                        try? await clock.sleep(until: due)
                        sink.yield(.pause)
                    }
                }
            case .pause:
                keys = input.paused(at: clock.uptime())
            }
            for key in keys {
                // Ctrl-L repaints every cell from a cleared screen, whatever
                // the terminal shows now (a diff would trust it).
                if key == .control("l") { shown = nil }
                await apply(.key(key))
                if state.quitting { return }
            }
        }
        quit()  // end of input
    }

    func resized() async {
        guard let size = terminal?.size() else { return }
        shown = nil
        await apply(.resize(width: size.width, height: size.height))
    }

    /// Runs one event through the reducer, performs its effects, and asks
    /// for a frame.
    func apply(_ event: ScreenEvent) async {
        let effects = ScreenReducer.reduce(&state, event)
        scheduleFrame()
        await perform(effects)
    }

    func refreshPeers() async {
        var linked: [NodeNumber: String?] = [:]
        for peer in await node.peers() { linked[peer.number] = .some(peer.stage) }
        await apply(.peers(linked))
    }

    func refreshRooms() async {
        guard let summaries = try? await node.roomList() else { return }
        var entries: [RoomEntry] = []
        entries.reserveCapacity(summaries.count + 1)
        for summary in summaries {
            let title = summary.room.peer.map { peer in summary.peerNickname.flatMap { $0.isEmpty ? nil : $0 } ?? "#" + peer.shortTag } ?? "public"
            entries.append(RoomEntry(room: summary.room, title: title, unread: summary.unreadCount, lastActivity: summary.lastActivity))
        }
        if !entries.contains(where: { $0.room == .publicRoom }) { entries.append(RoomEntry(room: .publicRoom, title: "public")) }
        // Linked peers with no conversation yet are listed too, so Tab reaches them.
        for peer in await node.peers() where !entries.contains(where: { $0.room == .direct(peer.number) }) {
            entries.append(RoomEntry(room: .direct(peer.number), title: node.displayName(for: peer.number, nickname: peer.nickname), online: true, stage: peer.stage))
        }
        await apply(.rooms(entries))
    }

    /// Draws at most one frame per interval; bursts of events share one.
    func scheduleFrame() {
        guard !frameScheduled, terminal != nil else { return }
        frameScheduled = true
        let due = lastFrame + Self.frameInterval
        Task { [clock] in
            try? await clock.sleep(until: due)  // at once if already due
            self.drawFrame()
        }
    }

    func drawFrame() {
        frameScheduled = false
        lastFrame = clock.uptime()
        guard let terminal, !state.quitting else { return }
        // Two grids, swapped: the new frame is drawn into the one from two
        // frames ago, so nothing is allocated per frame.
        let cursor = ScreenRenderer.render(state, into: &back)
        let output = ScreenDiff.output(from: shown, to: back, cursorRow: cursor.row, cursorColumn: cursor.column)
        // Cursor hidden while cells change, shown again at the input.
        terminal.write("\u{1B}[?25l" + output + "\u{1B}[?25h")
        if shown == nil { shown = back } else { swap(&shown!, &back) }
        let title = state.terminalTitle
        if title != shownTitle {
            terminal.write("\u{1B}]2;" + title + "\u{07}")
            shownTitle = title
        }
        sighted()
        // If this frame stays, what it shows has been seen once it stayed
        // for the dwell: look again then (no new frame needed for that).
        Task { [clock] in
            try? await clock.sleep(for: ScreenReducer.dwell + .milliseconds(20))
            self.sighted()
        }
    }

    /// Tells the reducer what the terminal shows now; only this moves the
    /// read marker. Skipped while a frame is due: the state is ahead of the
    /// terminal then, and that frame will tell.
    func sighted() {
        guard terminal != nil, !frameScheduled, !state.quitting else { return }
        let effects = ScreenReducer.reduce(&state, .drawn(at: clock.uptime()))
        if !effects.isEmpty { Task { await self.perform(effects) } }
    }

    func restore() {
        // Our title goes; terminals that saved theirs put it back.
        if shownTitle != nil { terminal?.write("\u{1B}]2;\u{07}" + Self.restoreTitle) }
        terminal?.restore()
        terminal = nil
    }

    /// xterm's title stack (XTWINOPS 22/23; tmux and others ignore it).
    static let saveTitle = "\u{1B}[22;2t"
    static let restoreTitle = "\u{1B}[23;2t"

    /// The bell, at most once a second (a catch-up full of mentions rings once).
    func ring() {
        guard bell, let terminal, clock.uptime() - lastBell >= .seconds(1) else { return }
        lastBell = clock.uptime()
        terminal.write("\u{07}")
    }
}

/// What the full screen's input loop reads.
enum KeyInputEvent: Sendable {
    case bytes([UInt8])
    /// The clock reached a pause's due time (`KeyInput.pauseDue`).
    case pause
}
