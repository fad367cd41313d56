import ChatCore
import Foundation

extension P2PService {
    /// Binds the TCP listener and the discovery socket, starts the poll
    /// thread and the timers, sends the start burst of beacons and dials the
    /// static peers. Throws `TransportError` (bad configuration, a port in
    /// use, a second start).
    public func start() async throws {
        try startRunning()
    }

    private func startRunning() throws(TransportError) {
        guard lifecycle == .idle else { throw .alreadyStarted }
        try configuration.validate()
        let fitted = DescriptorBudget.fitted(configuration.limits, toLimit: DescriptorBudget.processLimit())
        if fitted.maxLinks < configuration.limits.maxLinks {
            logger.info("the descriptor limit (ulimit -n \(DescriptorBudget.processLimit() ?? 0)) allows \(fitted.maxLinks) links, not \(configuration.limits.maxLinks)")
        }
        configuration.limits = fitted
        core.limits = fitted
        var targets: [IPv4Endpoint] = []
        // Named targets are checked against this host's networks; the
        // default scope is made of them.
        let interfaces = configuration.broadcastAddresses == nil ? [] : BroadcastScope.currentInterfaces()
        for text in configuration.broadcastAddresses ?? BroadcastScope.defaultAddresses() {
            guard let target = IPv4Endpoint(host: text.trimmingWhitespace(), port: configuration.discoveryPort) else {
                throw .invalidAddress(text)
            }
            if configuration.broadcastAddresses != nil, !BroadcastScope.staysOnLAN(target.address, interfaces: interfaces) {
                throw .invalidConfiguration("beacons to \(target.host) would leave the LAN: it is not this host, a private or link-local address, 255.255.255.255, nor on a network of this host's interfaces (--peer HOST:PORT links across networks)")
            }
            if !targets.contains(target) { targets.append(target) }
        }
        var statics: [HostPort] = []
        for text in configuration.staticPeers { statics.append(try HostPort(parsing: text)) }

        let listener = try Socket.makeTCPListener(port: configuration.listenPort)
        let discovery: Int32
        let loop: PollLoop
        do throws(TransportError) {
            port = try Socket.localEndpoint(listener).port
            discovery = try Socket.makeDiscoverySocket(port: configuration.discoveryPort)
            do throws(TransportError) {
                loop = try PollLoop(lazyToken: Self.discoveryToken)
            } catch {
                Socket.close(discovery)
                throw error
            }
        } catch {
            Socket.close(listener)
            port = 0
            throw error
        }
        self.listener = listener
        self.discovery = discovery
        self.loop = loop
        loopStopper = loop.stopper
        broadcastTargets = targets
        lifecycle = .running

        loop.register(discovery, token: Self.discoveryToken)
        loop.register(listener, token: Self.listenerToken)
        loop.arm(discovery, read: true)
        loop.arm(listener, read: true)
        loop.start(name: "lanchat-poll-\(identity.number.shortTag)")
        let reports = loop.reports
        background.append(Task { [weak self] in
            for await batch in reports {
                guard let self else { return }
                await self.handle(batch)
            }
        })
        logger.info("listening on TCP \(port), discovery on UDP \(configuration.discoveryPort), beacons to \(targets.map(\.host)), instance \(instance)")
        core.start(at: now, statics: statics)
        prepareTimer()
        tick()
        armTimer(at: nextWake())
    }

    /// Says leave (a datagram to every broadcast address, a leave frame on
    /// every link), closes every socket, stops the thread and finishes
    /// `events`. Idempotent.
    public func stop() async {
        switch lifecycle {
        case .stopped:
            return
        case .idle:
            lifecycle = .stopped
            events.finish()
            return
        case .running:
            break
        }
        // Nodes of this build ignore the datagram (anyone can forge it);
        // earlier v2 builds stop dialling on it. The leave frame is the word.
        sendDiscovery(.leave)
        // Links up at the far end but not yet here: a dialler's last
        // handshake message may wait on an accepted link, and the
        // acceptor's first record on our dial after message 3. Read them,
        // so those peers are told leave too, not reset.
        for link in links.values.sorted(by: { $0.id < $1.id }) where awaitsItsLastStep(link) {
            readFrames(from: link)
        }
        let leave = ControlFrame.encode(control(.leave))
        for link in established.values { write(leave, to: link) }
        shutDown(graceful: true)
        logger.info("stopped")
    }

    /// An accepted link whose message 3 may be waiting, or our dial that
    /// sent message 3 and waits for the acceptor's first record.
    private func awaitsItsLastStep(_ link: PeerLink) -> Bool {
        guard core[link.id]?.lifecycle.isUnfinished ?? false else { return false }
        return link.direction == .inbound || (link.handshake == nil && link.transport != nil)
    }

    /// Closes everything; `graceful` sends FIN after queued output (the
    /// leave frame) instead of letting close reset the connection.
    func shutDown(graceful: Bool) {
        lifecycle = .stopped
        for task in background { task.cancel() }
        background.removeAll()
        stopTimer()
        for link in links.values.sorted(by: { $0.id < $1.id }) {
            release(link, graceful: graceful && phase(of: link) == .established)
        }
        core.closeAll()
        for fd in [listener, discovery] where fd >= 0 {
            loop?.remove(fd)
            Socket.close(fd)
        }
        listener = -1
        discovery = -1
        loop?.stop()
        loop = nil
        events.finish()
    }

    /// One wake-up's readiness reports from the poll thread, in one actor
    /// turn (one hop per wake-up, not per descriptor).
    func handle(_ batch: [PollLoop.Report]) {
        stats.pollBatches += 1
        timer.inTurn = true
        for report in batch {
            guard lifecycle == .running, !frozen, let readiness = loop?.claim(report) else { continue }
            if readiness.readable { handle(readiness.token, writable: false) }
            if readiness.writable { handle(readiness.token, writable: true) }
        }
        timer.inTurn = false
        replanWake()
        holdDiscoveryWhileIdle()
    }

    private func handle(_ token: Int, writable: Bool) {
        guard lifecycle == .running, !frozen else { return }
        switch token {
        case Self.discoveryToken:
            receiveDatagrams()
            loop?.arm(discovery, read: true)
        case Self.listenerToken:
            acceptLinks()
            loop?.arm(listener, read: true)
        default:
            guard let link = links[token], !link.isClosed else { return }
            if !writable {
                readFrames(from: link)
            } else if phase(of: link) == .connecting {
                finishConnect(link)
            } else {
                flush(link)
            }
        }
    }
}
