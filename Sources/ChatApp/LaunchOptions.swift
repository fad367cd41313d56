import ChatStore

/// Everything the command line and environment say, as a plain value.
/// `CommandLineParser` builds it; `LANChatApp` runs it.
public struct LaunchOptions: Hashable, Sendable {
    public enum Mode: Hashable, Sendable {
        /// A person at a terminal.
        case interactive
        /// JSON lines: events on stdout, commands on stdin.
        case json
        /// Answers DMs with an automatic echo.
        case echoBot
        /// Sends `rate` automatic public messages per second (`count` in all, or forever).
        case chatterBot(rate: Double, count: Int?)
    }

    public enum Action: Hashable, Sendable {
        case run
        case help
        case version
    }

    public var action = Action.run
    public var mode = Mode.interactive
    public var nickname: String?
    public var stage: String?
    public var listenPort = 0
    public var discoveryPort = 47_474
    /// nil: the default scope (loopback plus private-range interfaces).
    public var broadcastAddresses: [String]?
    public var staticPeers: [String] = []
    public var dataDirectory: String?
    /// Where accepted files go; nil: `DownloadDirectory.defaultPath`.
    public var downloadDirectory: String?
    /// What each file transfer may send, in KiB/s; nil: no cap.
    public var fileRateKiB: Int?
    /// Keep history in memory only (bots, tests).
    public var inMemory = false
    /// Cap of the history file in MiB (the total storage quota); nil: none.
    public var maxHistoryMiB: Int?
    /// What one other peer's messages may take, in MiB (the per-peer
    /// quota); nil: `NodeOptions.defaultPeerQuota`.
    public var maxPeerHistoryMiB: Int?
    /// `--min-disk-free`: free disk the history leaves alone (`DiskReserve`).
    public var minDiskFree = DiskReserve.standard
    public var beaconInterval: Double = 2
    public var locale = "en"
    /// `--secret-file` / LANCHAT_SECRET_FILE: the private group's secret.
    public var secretFile: String?
    public var logLevel = "notice"
    /// `--plain`: the line console even at a terminal (the full-screen
    /// client is the default when stdin and stdout are both terminals).
    public var plain = false
    /// `--no-bell`: the full-screen client does not ring the terminal bell
    /// for DMs and mentions (they are still highlighted and counted).
    public var bell = true
    /// `--no-mouse`: the full-screen client asks for no mouse reports, so
    /// the terminal's own selection and paste keep working.
    public var mouse = true

    public init() {}
}
