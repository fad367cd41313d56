import ChatApp
import ChatStore
import Testing

@Suite struct CommandLineParserTests {
    let parser = CommandLineParser()

    @Test func defaultsAreAnInteractiveNodeOnTheDefaultScope() throws {
        let options = try parser.parse([])
        #expect(options.action == .run)
        #expect(options.mode == .interactive)
        #expect(options.broadcastAddresses == nil)
        #expect(options.discoveryPort == 47_474)
        #expect(options.listenPort == 0)
    }

    @Test func everyOptionParses() throws {
        let options = try parser.parse([
            "--nick", "alice", "--stage=ios", "-p", "4000", "--discovery-port", "5000",
            "-b", "127.255.255.255", "--broadcast=10.0.0.255", "--peer", "127.0.0.1:4001",
            "--peer", "host.local:9", "--data-dir", "/tmp/x", "--beacon-interval", "0.5",
            "--locale", "ko", "--json", "--log-level", "debug",
        ])
        #expect(options.nickname == "alice")
        #expect(options.stage == "ios")
        #expect(options.listenPort == 4000)
        #expect(options.discoveryPort == 5000)
        #expect(options.broadcastAddresses == ["127.255.255.255", "10.0.0.255"])
        #expect(options.staticPeers == ["127.0.0.1:4001", "host.local:9"])
        #expect(options.dataDirectory == "/tmp/x")
        #expect(options.beaconInterval == 0.5)
        #expect(options.locale == "ko")
        #expect(options.mode == .json)
        #expect(options.logLevel == "debug")
    }

    @Test func storageQuotasParse() throws {
        let options = try parser.parse(["--max-history", "40", "--max-peer-history", "3"])
        #expect(options.maxHistoryMiB == 40)
        #expect(options.maxPeerHistoryMiB == 3)
        #expect(try parser.parse([]).maxPeerHistoryMiB == nil)
    }

    @Test func theDiskReserveParsesAsMebibytesOrAPercentage() throws {
        #expect(try parser.parse([]).minDiskFree == .standard)
        #expect(try parser.parse(["--min-disk-free", "200"]).minDiskFree == DiskReserve(percent: 0, floor: 200 * 1_048_576))
        #expect(try parser.parse(["--min-disk-free", "2.5%"]).minDiskFree == DiskReserve(percent: 2.5, floor: 0))
        #expect(try parser.parse(["--min-disk-free", "0"]).minDiskFree == .none)
        for bad in ["-1", "51%", "lots", "%"] {
            #expect(throws: UsageError.self) { try parser.parse(["--min-disk-free", bad]) }
        }
        #expect(DiskReserve.standard.bytes(ofFileSystem: 2 << 30) == 50 * 1_048_576, "the floor on a small disk")
        #expect(DiskReserve.standard.bytes(ofFileSystem: 200 << 20) == 10 << 20, "never more than 5% of a very small one")
        #expect(DiskReserve(percent: 0, floor: 300 << 20).bytes(ofFileSystem: 200 << 20) == 300 << 20, "asked for in MiB: as asked")
        #expect(DiskReserve.standard.bytes(ofFileSystem: 100 << 30) == (100 << 30) / 100, "1% of a large one")
        #expect(DiskReserve.standard.description == "1% or 50 MiB, whichever is larger")
    }

    @Test func botsParse() throws {
        #expect(try parser.parse(["bot", "echo"]).mode == .echoBot)
        #expect(try parser.parse(["bot", "chatter", "--rate", "20", "--count", "5"]).mode == .chatterBot(rate: 20, count: 5))
        #expect(try parser.parse(["bot", "chatter"]).mode == .chatterBot(rate: 1, count: nil))
    }

    @Test func environmentBroadcastListIsReplacedByFlags() throws {
        let withEnv = CommandLineParser(environment: ["LANCHAT_BROADCAST": "127.255.255.255, 10.1.2.255"])
        #expect(try withEnv.parse([]).broadcastAddresses == ["127.255.255.255", "10.1.2.255"])
        #expect(try withEnv.parse(["-b", "127.0.0.255"]).broadcastAddresses == ["127.0.0.255"])
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["--nick"], "option --nick needs a value"),
        (["--nick", ""], "--nick: name is empty"),
        (["--port", "70000"], "--port wants a port number 0-65535, not '70000'"),
        (["--discovery-port", "0"], "--discovery-port wants a port number 1-65535, not '0'"),
        (["--broadcast", "255.255.255.256"], "--broadcast wants an IPv4 address such as 127.255.255.255, not '255.255.255.256'"),
        (["--broadcast", "lan"], "--broadcast wants an IPv4 address such as 127.255.255.255, not 'lan'"),
        (["--peer", "127.0.0.1"], "--peer wants HOST:PORT, such as 127.0.0.1:47001, not '127.0.0.1'"),
        (["--beacon-interval", "0"], "--beacon-interval wants seconds between 0.05 and 3600, not '0'"),
        (["--locale", "fr"], "--locale is en or ko, not 'fr'"),
        (["--max-peer-history", "0"], "--max-peer-history wants MiB between 1 and 1048576, not '0'"),
        (["bot"], "'bot' needs a kind: echo or chatter"),
        (["bot", "dance"], "unknown bot 'dance'; kinds are echo and chatter"),
        (["hello"], "unexpected argument 'hello'"),
        (["--rate", "3"], "--rate and --count apply to 'bot chatter' only"),
        (["bot", "chatter", "--rate", "-1"], "--rate wants messages per second between 0 and 10000, not '-1'"),
        (["--in-memory", "--data-dir", "/tmp/x"], "--in-memory and --data-dir exclude each other"),
    ])
    func badUsageNamesTheProblem(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try parser.parse(arguments) }
    }

    @Test func usageErrorIsOneLineWithAPointerToHelp() {
        let text = UsageError("unknown option '--x'").description
        #expect(text == "lanchat: unknown option '--x' (see 'lanchat --help')")
        #expect(!text.contains("\n"))
        #expect(UsageError.exitCode == 64)
    }

    @Test func helpAndVersion() throws {
        #expect(try parser.parse(["--help"]).action == .help)
        #expect(try parser.parse(["-h", "--json"]).action == .help)
        #expect(try parser.parse(["--version"]).action == .version)
    }

    // Compose files set these once per service instead of repeating commands.
    @Test func environmentSetsWhatAComposeFileNeeds() throws {
        let parser = CommandLineParser(environment: [
            "LANCHAT_NICK": "alice", "LANCHAT_STAGE": "ci", "LANCHAT_PORT": "47100",
            "LANCHAT_DISCOVERY_PORT": "47475", "LANCHAT_DATA_DIR": "/data",
            "LANCHAT_PEERS": "carol:47100, 10.0.0.2:47100", "LANCHAT_LOG_LEVEL": "info",
            "LANCHAT_BROADCAST": "10.47.0.255",
        ])
        let options = try parser.parse(["bot", "echo"])
        #expect(options.nickname == "alice")
        #expect(options.stage == "ci")
        #expect(options.listenPort == 47100)
        #expect(options.discoveryPort == 47475)
        #expect(options.dataDirectory == "/data")
        #expect(options.staticPeers == ["carol:47100", "10.0.0.2:47100"])
        #expect(options.logLevel == "info")
        #expect(options.broadcastAddresses == ["10.47.0.255"])
        #expect(options.mode == .echoBot)
    }

    @Test func flagsWinOverTheEnvironment() throws {
        let parser = CommandLineParser(environment: [
            "LANCHAT_NICK": "alice", "LANCHAT_STAGE": "ci", "LANCHAT_PORT": "47100",
            "LANCHAT_DISCOVERY_PORT": "47475", "LANCHAT_DATA_DIR": "/data",
            "LANCHAT_PEERS": "carol:47100", "LANCHAT_LOG_LEVEL": "info",
        ])
        let options = try parser.parse([
            "--nick", "bob", "--stage", "dev", "--port", "0", "--discovery-port", "47474",
            "--data-dir", "/tmp/b", "--peer", "dave:1", "--log-level", "error",
        ])
        #expect(options.nickname == "bob")
        #expect(options.stage == "dev")
        #expect(options.listenPort == 0)
        #expect(options.discoveryPort == 47474)
        #expect(options.dataDirectory == "/tmp/b")
        #expect(options.staticPeers == ["carol:47100", "dave:1"])
        #expect(options.logLevel == "error")
        // --in-memory sets the environment's directory aside instead of clashing with it.
        let inMemory = try parser.parse(["--in-memory"])
        #expect(inMemory.inMemory && inMemory.dataDirectory == nil)
    }

    @Test func emptyVariablesCountAsUnset() throws {
        let parser = CommandLineParser(environment: ["LANCHAT_NICK": "", "LANCHAT_PORT": "", "LANCHAT_DATA_DIR": ""])
        let options = try parser.parse([])
        #expect(options.nickname == nil && options.listenPort == 0 && options.dataDirectory == nil)
    }

    @Test(arguments: [
        ("LANCHAT_PORT", "http", "LANCHAT_PORT wants a port number 0-65535, not 'http'"),
        ("LANCHAT_DISCOVERY_PORT", "0", "LANCHAT_DISCOVERY_PORT wants a port number 1-65535, not '0'"),
        ("LANCHAT_PEERS", "carol", "LANCHAT_PEERS wants HOST:PORT, such as 127.0.0.1:47001, not 'carol'"),
        ("LANCHAT_LOG_LEVEL", "loud", "LANCHAT_LOG_LEVEL is one of trace, debug, info, notice, warning, error, not 'loud'"),
        ("LANCHAT_NICK", String(repeating: "x", count: 200), "LANCHAT_NICK: "),
    ])
    func badVariableNamesTheVariable(key: String, value: String, message: String) {
        let parser = CommandLineParser(environment: [key: value])
        do {
            _ = try parser.parse([])
            Issue.record("\(key)=\(value.prefix(20)) was accepted")
        } catch {
            #expect(error.message.hasPrefix(message))
        }
    }
}

/// `--no-bell` (issue 27): the full-screen client's bell for DMs and mentions.
@Suite struct BellOptionTests {
    @Test func theBellRingsUnlessTurnedOff() throws {
        #expect(try CommandLineParser().parse([]).bell)
        #expect(try !CommandLineParser().parse(["--no-bell"]).bell)
        #expect(HelpText.usage.contains("--no-bell"))
    }
}
