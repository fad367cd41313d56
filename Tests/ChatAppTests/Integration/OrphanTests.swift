import Foundation
import Glibc
import LANChatHarness
import Testing
import TestSupport

/// A crashed parent leaves no bot behind: a parent process starts a bot the
/// way `NodeProcess` does (through `ChildLauncher`'s command), then is
/// killed with SIGKILL, so no cleanup code of its runs. The bot must be gone
/// within a deadline. The control (same parent, no launcher) shows the bot
/// would otherwise outlive its parent, so the test can fail.
@Suite(.realTime) struct OrphanTests {
    /// Starts `sh`, which starts a bot (under the launcher or not), prints
    /// the bot's pid, then waits; returns the shell and the bot's pid.
    static func parentWithBot(launcher: Bool) async throws -> (parent: NodeProcess, bot: pid_t) {
        let bot = [NodeProcess.binary.path, "bot", "echo", "--nick", "orphan", "--in-memory",
                   "--broadcast", "127.255.255.255", "--discovery-port", "\(EndToEndTests.discoveryPort())"]
        let command = launcher ? [ChildLauncher.setpriv, "--pdeathsig", "KILL", "--"] + bot : bot
        let quoted = command.map { "'\($0)'" }.joined(separator: " ")
        // `exec sleep`: the shell's own process (the bot's parent) waits on.
        let parent = try NodeProcess(executable: "/bin/sh", ["-c", "\(quoted) </dev/null >/dev/null 2>&1 & echo $!; exec sleep 120"])
        try #require(await waitUntil("bot's pid", within: .seconds(10)) { !parent.stdoutLines.isEmpty })
        let pid = try #require(pid_t(parent.stdoutLines[0].trimmingCharacters(in: .whitespaces)))
        // The pid is the forked shell's until it execs: the launcher sets
        // the parent-death signal before it execs the bot, so a parent
        // killed before that (seen on a loaded machine) leaves a bot that
        // no signal will ever reach. Wait for the bot itself.
        try #require(await waitUntil("the bot running") { Self.arguments(of: pid).first == NodeProcess.binary.path })
        return (parent, pid)
    }

    /// The command line of `pid`, as /proc has it.
    static func arguments(of pid: pid_t) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `pid` is a live process (a zombie counts as gone).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    @Test func botDiesWhenItsParentIsKilled() async throws {
        let (parent, bot) = try await Self.parentWithBot(launcher: true)
        defer { kill(bot, SIGKILL) }
        try #require(Self.isAlive(bot))
        parent.signal(SIGKILL)
        // The standard deadline: the signal is sent at once, but a loaded
        // machine may take a while to run the bot's exit.
        #expect(await waitUntil("bot gone") { !Self.isAlive(bot) })
    }

    @Test func withoutTheLauncherTheBotWouldSurvive() async throws {
        let (parent, bot) = try await Self.parentWithBot(launcher: false)
        defer { kill(bot, SIGKILL) }
        try #require(Self.isAlive(bot))
        parent.signal(SIGKILL)
        let parentPid = parent.pid
        try #require(await waitUntil("parent gone", within: .seconds(5)) { !Self.isAlive(parentPid) })
        #expect(Self.isAlive(bot), "control: without the launcher an orphan outlives its parent")
    }
}
