import ChatCore

/// Environment variables for the options a container or service file sets
/// once for many nodes (docker-compose.yml). Flags given on the command line
/// win over these.
extension CommandLineParser {
    /// Applied before the flags are read, so a flag overrides its variable.
    func applyEnvironment(to options: inout LaunchOptions) throws(UsageError) {
        if let nick = variable("LANCHAT_NICK") { options.nickname = try Self.name(nick, for: "LANCHAT_NICK") }
        if let stage = variable("LANCHAT_STAGE") { options.stage = try Self.name(stage, for: "LANCHAT_STAGE") }
        if let port = variable("LANCHAT_PORT") {
            options.listenPort = try Self.port(port, for: "LANCHAT_PORT", allowZero: true)
        }
        if let port = variable("LANCHAT_DISCOVERY_PORT") {
            options.discoveryPort = try Self.port(port, for: "LANCHAT_DISCOVERY_PORT", allowZero: false)
        }
        if let list = variable("LANCHAT_PEERS") {
            options.staticPeers = try list.split(separator: ",").map { item throws(UsageError) in
                try Self.hostPort(String(item).trimmingWhitespace(), for: "LANCHAT_PEERS")
            }
        }
        if let level = variable("LANCHAT_LOG_LEVEL") {
            guard Self.logLevels.contains(level) else {
                throw UsageError("LANCHAT_LOG_LEVEL is one of \(Self.logLevels.joined(separator: ", ")), not '\(level)'")
            }
            options.logLevel = level
        }
    }

    /// LANCHAT_DATA_DIR, applied after the flags: `--in-memory` or
    /// `--data-dir` on the command line sets it aside.
    func environmentDataDirectory(for options: LaunchOptions) -> String? {
        guard !options.inMemory, options.dataDirectory == nil else { return options.dataDirectory }
        return variable("LANCHAT_DATA_DIR")
    }

    /// An unset or empty variable counts as absent.
    private func variable(_ key: String) -> String? {
        guard let value = environment[key], !value.isEmpty else { return nil }
        return value
    }
}
