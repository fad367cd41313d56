import ChatCore
import ChatStore

/// Turns argv and the environment into `LaunchOptions`, or a `UsageError`.
/// Pure: no I/O, so every case is unit-testable.
public struct CommandLineParser {
    public var environment: [String: String]

    public init(environment: [String: String] = [:]) {
        self.environment = environment
    }

    public func parse(_ arguments: [String]) throws(UsageError) -> LaunchOptions {
        var options = LaunchOptions()
        if let list = environment["LANCHAT_BROADCAST"], !list.isEmpty {
            options.broadcastAddresses = try list.split(separator: ",").map { item throws(UsageError) in
                try Self.ipv4(String(item).trimmingWhitespace(), for: "LANCHAT_BROADCAST")
            }
        }
        try applyEnvironment(to: &options)
        if let file = environment["LANCHAT_SECRET_FILE"], !file.isEmpty { options.secretFile = file }
        var broadcastFromFlags: [String] = []
        var rate: Double?
        var count: Int?
        var positionals: [String] = []
        var remaining = arguments[...]

        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw UsageError("option \(name) needs a value") }
                return next
            }
            switch name {
            case "-h", "--help": options.action = .help
            case "--version": options.action = .version
            case "--json": options.mode = .json
            case "--plain": options.plain = true
            case "--no-bell": options.bell = false
            case "--no-mouse": options.mouse = false
            case "-n", "--nick", "--nickname": options.nickname = try Self.name(try value(), for: name, nickname: true)
            case "--stage": options.stage = try Self.name(try value(), for: name)
            case "-p", "--port": options.listenPort = try Self.port(try value(), for: name, allowZero: true)
            case "--discovery-port": options.discoveryPort = try Self.port(try value(), for: name, allowZero: false)
            case "-b", "--broadcast": broadcastFromFlags.append(try Self.ipv4(try value(), for: name))
            case "--peer": options.staticPeers.append(try Self.hostPort(try value(), for: name))
            case "-d", "--data-dir": options.dataDirectory = try Self.nonEmpty(try value(), for: name)
            case "--in-memory": options.inMemory = true
            case "--download-dir": options.downloadDirectory = try Self.nonEmpty(try value(), for: name)
            case "--file-rate":
                let text = try value()
                guard let rate = Int(text), rate >= 1, rate <= 100_000_000 else {
                    throw UsageError("--file-rate wants KiB/s between 1 and 100000000, not '\(text)'")
                }
                options.fileRateKiB = rate
            case "--secret-file": options.secretFile = try Self.nonEmpty(try value(), for: name)
            case "--max-history":
                let text = try value()
                guard let mib = Int(text), mib >= 1, mib <= 1_048_576 else {
                    throw UsageError("--max-history wants MiB between 1 and 1048576, not '\(text)'")
                }
                options.maxHistoryMiB = mib
            case "--max-peer-history":
                let text = try value()
                guard let mib = Int(text), mib >= 1, mib <= 1_048_576 else {
                    throw UsageError("--max-peer-history wants MiB between 1 and 1048576, not '\(text)'")
                }
                options.maxPeerHistoryMiB = mib
            case "--min-disk-free": options.minDiskFree = try Self.diskReserve(try value())
            case "--beacon-interval":
                let text = try value()
                guard let seconds = Double(text), seconds >= 0.05, seconds <= 3600 else {
                    throw UsageError("--beacon-interval wants seconds between 0.05 and 3600, not '\(text)'")
                }
                options.beaconInterval = seconds
            case "--locale":
                let locale = try value()
                guard ["en", "ko"].contains(locale) else { throw UsageError("--locale is en or ko, not '\(locale)'") }
                options.locale = locale
            case "--log-level":
                let level = try value()
                guard Self.logLevels.contains(level) else {
                    throw UsageError("--log-level is one of \(Self.logLevels.joined(separator: ", ")), not '\(level)'")
                }
                options.logLevel = level
            case "--rate":
                let text = try value()
                guard let perSecond = Double(text), perSecond > 0, perSecond <= 10_000 else {
                    throw UsageError("--rate wants messages per second between 0 and 10000, not '\(text)'")
                }
                rate = perSecond
            case "--count":
                let text = try value()
                guard let total = Int(text), total > 0 else { throw UsageError("--count wants a positive number, not '\(text)'") }
                count = total
            default:
                if argument.hasPrefix("-") && argument != "-" { throw UsageError("unknown option '\(name)'") }
                positionals.append(argument)
            }
        }
        if !broadcastFromFlags.isEmpty { options.broadcastAddresses = broadcastFromFlags }
        options.dataDirectory = environmentDataDirectory(for: options)

        switch positionals {
        case []: break
        case ["bot", "echo"]: options.mode = .echoBot
        case ["bot", "chatter"]: options.mode = .chatterBot(rate: rate ?? 1, count: count)
        case ["bot"]: throw UsageError("'bot' needs a kind: echo or chatter")
        case let words where words.first == "bot": throw UsageError("unknown bot '\(words.dropFirst().joined(separator: " "))'; kinds are echo and chatter")
        default: throw UsageError("unexpected argument '\(positionals[0])'")
        }
        if rate != nil || count != nil, case .chatterBot = options.mode {} else if rate != nil || count != nil {
            throw UsageError("--rate and --count apply to 'bot chatter' only")
        }
        if options.inMemory && options.dataDirectory != nil {
            throw UsageError("--in-memory and --data-dir exclude each other")
        }
        return options
    }

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error"]

    static func name(_ text: String, for option: String, nickname: Bool = false) throws(UsageError) -> String {
        do { return try nickname ? NodeName.validatedNickname(text) : NodeName.validated(text) } catch { throw UsageError("\(option): \(error)") }
    }

    static func nonEmpty(_ text: String, for option: String) throws(UsageError) -> String {
        guard !text.isEmpty else { throw UsageError("\(option) needs a value") }
        return text
    }

    static func port(_ text: String, for option: String, allowZero: Bool) throws(UsageError) -> Int {
        guard let port = Int(text), (allowZero ? 0 : 1)...65535 ~= port else {
            throw UsageError("\(option) wants a port number \(allowZero ? "0" : "1")-65535, not '\(text)'")
        }
        return port
    }

    static func ipv4(_ text: String, for option: String) throws(UsageError) -> String {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && (UInt8(part) != nil)
        }) else {
            throw UsageError("\(option) wants an IPv4 address such as 127.255.255.255, not '\(text)'")
        }
        return text
    }

    static func hostPort(_ text: String, for option: String) throws(UsageError) -> String {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
              let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw UsageError("\(option) wants HOST:PORT, such as 127.0.0.1:47001, not '\(text)'")
        }
        return text
    }

    /// `--min-disk-free`: MiB (`0`: none) or a percentage of the file system (`2%`).
    static func diskReserve(_ text: String) throws(UsageError) -> DiskReserve {
        if text.hasSuffix("%"), let percent = Double(text.dropLast()), percent >= 0, percent <= 50 {
            return DiskReserve(percent: percent, floor: 0)
        }
        if let mib = Int(text), mib >= 0, mib <= 1_048_576 { return DiskReserve(percent: 0, floor: mib * 1_048_576) }
        throw UsageError("--min-disk-free wants MiB (0 to 1048576) or a percentage up to 50%, not '\(text)'")
    }
}
