import ChatCore
import ChatCrypto
import ChatNode
import ChatStore
import Foundation
import P2PTransport

/// The `lanchat` command: parse, build the node, run a front end until quit
/// or a signal, then leave cleanly.
public enum LANChatApp {
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        let options: LaunchOptions
        do {
            options = try CommandLineParser(environment: environment).parse(arguments)
        } catch {
            writeError(error.description)
            return UsageError.exitCode
        }
        switch options.action {
        case .help:
            await LineWriter.standardOutput.write(HelpText.usage)
            return 0
        case .version:
            await LineWriter.standardOutput.write(HelpText.version)
            return 0
        case .run:
            return await runNode(options, environment: environment)
        }
    }

    static func runNode(_ options: LaunchOptions, environment: [String: String]) async -> Int32 {
        // One clock for every timer of the node, the transport and the front ends.
        let clock = SystemClock()
        let fullScreen = options.mode == .interactive && !options.plain && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        // The full-screen client owns the terminal: its log goes to a file
        // in the data directory and to `/log`, never to stderr.
        let logBook = fullScreen ? LogBook(clock: clock) : nil
        let logger = logBook?.logger(minimumLevel: logLevel(options.logLevel)) ?? standardErrorLogger(level: options.logLevel)
        let nickname = options.nickname ?? defaultNickname(environment)
        // Bots keep no history unless given a directory; people do.
        let isBot = options.mode == .echoBot || { if case .chatterBot = options.mode { true } else { false } }()
        let inMemory = options.inMemory || (isBot && options.dataDirectory == nil)
        let dataDirectory: DataDirectory?
        let identityKey: IdentityKey
        let groupSecret: GroupSecret?
        let store: ChatStore
        do {
            if inMemory {
                dataDirectory = nil
                identityKey = try IdentityKey.generate()  // a fresh identity per run
            } else {
                let directory = try DataDirectory(path: options.dataDirectory ?? DataDirectory.defaultPath(nickname: nickname, environment: environment))
                dataDirectory = directory
                if let logBook {
                    do { logBook.attach(try LogFile(path: directory.logPath)) } catch { logger.warning("\(error); the log is kept for /log only") }
                }
                let loaded = try directory.identityKey()
                identityKey = loaded.key
                if let notice = loaded.migrationNotice { logger.notice(notice) }
            }
            groupSecret = try options.secretFile.map(loadGroupSecret)
            store = try ChatStore(path: dataDirectory?.historyPath, localNumber: identityKey.nodeNumber, durability: .full,
                                  maxBytes: options.maxHistoryMiB.map { $0 * 1_048_576 }, diskReserve: options.minDiskFree,
                                  logger: logger.labeled("store"))
        } catch let error as DataDirectory.Failure {
            writeError("lanchat: \(error)")
            return 1
        } catch let error as CryptoError {
            writeError("lanchat: cannot create an identity key: \(error)")
            return 1
        } catch {
            writeError("lanchat: cannot open history: \(error)")
            return 1
        }
        let locale = Locale(identifier: options.locale == "ko" ? "ko_KR" : "en_US")
        logger.info("identity \(identityKey.publicKey.fingerprint), node \(identityKey.nodeNumber)")
        let identity = NodeIdentity(number: identityKey.nodeNumber, nickname: nickname, stage: options.stage)
        var configuration = transportConfiguration(options)
        configuration.identityKey = identityKey
        // What this node does for peers (docs/PROTOCOL.md, 3.2 "The handshake and the hello"): it
        // acknowledges DMs and answers catch-up.
        configuration.capabilities = ["ack", "history"]
        // The overlay for large LANs (and its capability `overlay`); below
        // its threshold the node links to everyone as before.
        // LANCHAT_OVERLAY_THRESHOLD is for tests only: it forces the overlay on at small N.
        configuration.enableOverlay(fullMeshThreshold: environment["LANCHAT_OVERLAY_THRESHOLD"].flatMap { Int($0) })
        // LANCHAT_DISCOVERY_BASELINE=1 is for the bench only: discovery as before its mass-start rules.
        if environment["LANCHAT_DISCOVERY_BASELINE"] == "1" { configuration.massStartRules = false }
        // LANCHAT_DISCOVERY_HOLD_MS is for the bench only: another `discoveryHold` (0: none).
        if let hold = environment["LANCHAT_DISCOVERY_HOLD_MS"].flatMap({ Int($0) }) { configuration.discoveryHold = .milliseconds(max(0, hold)) }
        configuration.groupSecret = groupSecret
        // One table of verified signatures for the transport and the node:
        // a gossiped message the transport verified is not verified again.
        let verified = VerifiedSignatures()
        let service = P2PService(identity: identity, configuration: configuration, clock: clock, logger: logger.labeled("transport"),
                                 verifiedSignatures: verified)
        let node = ChatNode(identity: identity, transport: service, store: store, clock: clock, logger: logger.labeled("node"),
                            authenticator: Ed25519MessageAuthenticator(key: identityKey, verified: verified),
                            options: nodeOptions(options))
        logStorage(options, path: dataDirectory?.historyPath, store: store, logger: logger)
        let signals = SignalWatcher()
        let files: FileTransfers
        do {
            // Files move on links of their own (FileTransferService), bound to the same identity.
            let pacing = options.fileRateKiB.map { FilePacing(kibPerSecond: $0) } ?? .unpaced
            let links = try FileTransferService(identity: identityKey, groupSecret: groupSecret, logger: logger.labeled("files"),
                                                pacing: pacing, clock: clock)
            files = FileTransfers(localNumber: identity.number, links: links, transport: service, store: store, events: node.events,
                                  downloadDirectory: options.downloadDirectory ?? DownloadDirectory.defaultPath(environment: environment),
                                  clock: clock, logger: logger.labeled("files"), identity: { [node] in await node.identity })
            await node.attach(files: files)
            try await files.start()
            try await node.start()
        } catch {
            writeError("lanchat: cannot start: \(error)")
            return 1
        }

        let (quitRequests, quit) = AsyncStream.makeStream(of: Void.self)
        let out = LineWriter.standardOutput
        // The line console draws its prompt and reads keys itself on a terminal.
        let console: ConsoleScreen? = options.mode == .interactive && !fullScreen ? .standard() : nil
        let frontEnd: any FrontEnd = switch options.mode {
        case .interactive where fullScreen:
            FullScreenSession(node: node, identity: identity, locale: locale, clock: clock, log: logBook, bell: options.bell, mouse: options.mouse) { quit.yield() }
        case .interactive:
            InteractiveSession(node: node, screen: console ?? .plain(), renderer: ConsoleRenderer(
                useColor: ConsoleRenderer.wantsColor(environment: environment, isTerminal: isatty(STDOUT_FILENO) == 1)),
                locale: locale, clock: clock)
        case .json:
            JSONSession(node: node, out: out, instanceId: await service.instanceId,
                        fingerprint: identityKey.publicKey.fingerprint, locale: locale)
        case .echoBot:
            EchoBot(node: node, logger: logger.labeled("bot"))
        case .chatterBot(let rate, let count):
            ChatterBot(node: node, rate: rate, count: count, logger: logger.labeled("bot"), clock: clock) { quit.yield() }
        }
        await frontEnd.started(port: await service.listeningPort)
        // Once the screen is up, not even a stray write to stderr reaches it.
        var redirect: StandardErrorRedirect?
        if let session = frontEnd as? FullScreenSession, await session.ownsTerminal {
            redirect = StandardErrorRedirect(path: dataDirectory?.logPath ?? "/dev/null")
        }

        let eventPump = Task {
            for await event in node.events { await frontEnd.handle(event) }
        }
        let input: Task<Void, Never>? = frontEnd.readsInput ? Task {
            reading: for await input in console?.lines(logger: logger) ?? .standardInput(logger: logger) {
                switch input {
                case .line(let line): if !(await frontEnd.handle(line: line)) { break reading }
                case .tooLong(let bytes): await frontEnd.refuseLine(bytes: bytes, limit: InputLines.maxLineBytes)
                }
            }
            quit.yield()  // quit command or end of input
        } : nil
        let signalPump = Task {
            for await number in signals.signals {
                logger.info("signal \(number): leaving")
                quit.yield()
            }
        }
        let background = Task { await frontEnd.background() }
        let trimmer = Task { await MemoryTrimmer.run(node: node, clock: clock, logger: logger.labeled("memory")) }

        for await _ in quitRequests { break }
        background.cancel()
        trimmer.cancel()
        input?.cancel()
        await files.stop()
        await node.stop()  // leave, close links, finish events
        await eventPump.value  // every event written before we exit
        signalPump.cancel()
        await store.close()
        console?.restore()
        redirect?.end()
        withExtendedLifetime(dataDirectory) {}  // the lock is held until here
        return 0
    }

    /// The storage shares (ChatNode+TrustPools.swift): each known peer's
    /// quota, the unknown authors' pool (one such share), and under a
    /// history cap smaller steps (`WALBound.commitBatch`).
    static func nodeOptions(_ options: LaunchOptions) -> NodeOptions {
        let cap = options.maxHistoryMiB.map { $0 * 1_048_576 }
        let share = NodeOptions.defaultPeerQuota(historyBytes: cap)
        // The pool of strangers' messages is one peer's share.
        return NodeOptions(peerStorageQuota: options.maxPeerHistoryMiB.map { $0 * 1_048_576 } ?? share,
                           commitBatch: cap.map { WALBound.commitBatch(cap: $0) } ?? NodeLimits.maxCommitBatch)
    }

    /// Says at start what the history may take, once.
    static func logStorage(_ options: LaunchOptions, path: String?, store: ChatStore, logger: ChatLogger) {
        guard let path else { return }
        if let reserve = store.reserveBytes, reserve > 0 {
            logger.notice("keeping \(reserve / 1_048_576) MiB free on the disk of \(path) (--min-disk-free \(options.minDiskFree)); below it, unknown senders' messages age out instead of growing the history")
        } else {
            logger.notice("no free disk reserve for \(path) (--min-disk-free 0)")
        }
        if let mib = options.maxHistoryMiB {
            let margin = WALBound.margin(cap: mib * 1_048_576)
            logger.notice("history capped at \(mib) MiB (its write-ahead log within \(margin / 1024) KiB more)")
        }
    }

    static func transportConfiguration(_ options: LaunchOptions) -> P2PConfiguration {
        var configuration = P2PConfiguration()
        configuration.discoveryPort = options.discoveryPort
        configuration.listenPort = options.listenPort
        configuration.broadcastAddresses = options.broadcastAddresses
        configuration.staticPeers = options.staticPeers
        configuration.beaconInterval = .milliseconds(Int64(options.beaconInterval * 1000))
        // Dead after about three missed beacons, never sooner than the keepalive allows.
        configuration.keepaliveInterval = min(.seconds(2), configuration.beaconInterval)
        configuration.deadPeerTimeout = max(.seconds(1), configuration.beaconInterval * 3)
        return configuration
    }

    /// Reads `--secret-file`; a missing or unusable file stops the start.
    static func loadGroupSecret(_ path: String) throws(DataDirectory.Failure) -> GroupSecret {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DataDirectory.Failure(description: "cannot read the group secret file \(path)")
        }
        do {
            return try GroupSecret(fileContents: Array(data))
        } catch {
            throw DataDirectory.Failure(description: "\(path): \(error)")
        }
    }

    static func defaultNickname(_ environment: [String: String]) -> String {
        for key in ["USER", "LOGNAME"] {
            if let name = environment[key], let valid = try? NodeName.validatedNickname(name) { return valid }
        }
        return "anon"
    }

    static func logLevel(_ name: String) -> LogLevel {
        LogLevel.allCases.first { $0.description == name } ?? .notice
    }

    static func standardErrorLogger(level: String) -> ChatLogger {
        ChatLogger(label: "lanchat", minimumLevel: logLevel(level)) { record in
            // Log lines can quote peers' text: sanitize like any terminal output.
            writeError("lanchat[\(record.label)] \(record.level): \(TerminalText.sanitize(record.message))")
        }
    }

    static func writeError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
