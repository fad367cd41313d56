import Foundation
import Glibc
import Testing
import TestSupport

/// A real full disk under the receiver: bob's `--download-dir` is a tmpfs
/// of its own, mounted by `unshare -m` in a private mount namespace, so
/// nothing shows in the machine's mounts and the tmpfs goes when bob
/// exits. The test reaches into it through `/proc/PID/root`. Needs root
/// (CI runs as root); elsewhere the suite is skipped and says why.
///
/// What the node does, as docs/USAGE.md says: an offer bigger than the
/// free space less the 256 MiB reserve is refused at `acceptFile` with a
/// clear error and nothing written; a disk that fills after the accept
/// fails the transfer on both sides ("cannot write the file: No space
/// left on device") and the partial file is removed, not kept for resume.
@Suite(.realTime, .enabled(if: PrivateMount.available, "needs root and unshare(1) to mount a private tmpfs"))
struct FileTransferDiskFullTests {
    static let unshare = PrivateMount.unshare

    /// bob, downloading into a fresh tmpfs of `mebibytes` at `downloads`.
    static func receiver(port: Int, downloads: String, mebibytes: Int) throws -> NodeProcess {
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        return try NodeProcess(executable: unshare, [
            "-m", "--propagation", "private", "/bin/sh", "-c",
            "mount -t tmpfs -o size=\(mebibytes)m,mode=0700 lanchat-test \"$0\" && exec \"$@\"", downloads,
            NodeProcess.binary.path, "--json", "--nick", "bob", "--broadcast", "127.255.255.255", "--discovery-port", "\(port)",
            "--beacon-interval", "0.5", "--in-memory", "--download-dir", downloads,
        ])
    }

    /// `path` as bob's mount namespace sees it (bob's process is the
    /// shell's and unshare's: each execs the next).
    static func inside(_ node: NodeProcess, _ path: String) -> String {
        "/proc/\(node.pid)/root" + path
    }

    static func freeBytes(_ path: String) -> Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return -1 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Allocates `path` until its file system is full; returns the bytes taken.
    static func fill(_ path: String) throws -> Int64 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var taken: Int64 = 0
        var step: Int64 = 1 << 24
        while step >= 4096 {
            if posix_fallocate(fd, off_t(taken), off_t(step)) == 0 { taken += step } else { step /= 2 }
        }
        return taken
    }

    static func reply(_ node: NodeProcess, to id: String) async throws -> [String: Any] {
        try await node.event("the reply to \(id)") { $0["re"] as? String == id }
    }

    @Test func anOfferBiggerThanTheFreeDiskIsRefusedAtAccept() async throws {
        let scratch = try ScratchDirectory()
        let downloads = scratch.path + "/downloads"
        let port = EndToEndTests.discoveryPort()
        let alice = try EndToEndTests.node("alice", port: port)
        let bob = try Self.receiver(port: port, downloads: downloads, mebibytes: 16)
        defer { alice.kill9(); bob.kill9() }
        try await EndToEndTests.waitForPeers(alice, ["bob"])
        let source = try scratch.file("small.bin", bytes: FileTransferEndToEndTests.randomBytes(1_048_576))
        let id = try await FileTransferEndToEndTests.offer(source, from: alice, to: bob, name: "bob")
        bob.send(json: ["cmd": "acceptFile", "id": id])
        let refusal = try await Self.reply(bob, to: id)
        #expect(refusal["event"] as? String == "error")
        let message = try #require(refusal["message"] as? String)
        #expect(message.contains("not enough free disk in \(downloads)"), "\(message)")
        #expect(message.contains("1048576 bytes offered"), "\(message)")
        #expect(scratch.listing(Self.inside(bob, downloads)).isEmpty, "nothing written")
        // Still an offer: it can be declined, and chat goes on.
        bob.send(json: ["cmd": "declineFile", "id": id])
        try await alice.event("declined") { FileTransferEndToEndTests.isEvent("fileFailed", id: id)($0) }
        alice.send(json: ["cmd": "send", "text": "after the refusal"])
        try await bob.event("chat goes on") { $0["event"] as? String == "message" && $0["text"] as? String == "after the refusal" }
    }

    /// The disk fills after the accept, mid-transfer: a clear failure on
    /// both sides, the partial file removed, chat unaffected, and once
    /// space is back the same node takes the next file.
    @Test func aDiskFillingMidwayFailsClearlyAndTheNodeGoesOn() async throws {
        let scratch = try ScratchDirectory()
        let downloads = scratch.path + "/downloads"
        let port = EndToEndTests.discoveryPort()
        // 8 MiB at 2 MiB/s: the disk is filled while the bytes flow. The
        // tmpfs (memory, only what is written) passes the 256 MiB reserve.
        let alice = try EndToEndTests.node("alice", port: port, ["--file-rate", "2048"])
        let bob = try Self.receiver(port: port, downloads: downloads, mebibytes: 300)
        defer { alice.kill9(); bob.kill9() }
        try await EndToEndTests.waitForPeers(alice, ["bob"])
        let content = FileTransferEndToEndTests.randomBytes(8 * 1_048_576)
        let id = try await FileTransferEndToEndTests.offer(try scratch.file("big.bin", bytes: content), from: alice, to: bob, name: "bob")
        bob.send(json: ["cmd": "acceptFile", "id": id])
        try await bob.event("a first MiB") { FileTransferEndToEndTests.isEvent("fileProgress", id: id)($0) && ($0["bytes"] as? Int ?? 0) >= 1_048_576 }
        let filler = Self.inside(bob, downloads + "/filler")
        let taken = try Self.fill(filler)
        #expect(taken > 250 * 1_048_576 && Self.freeBytes(Self.inside(bob, downloads)) < 65_536, "the tmpfs is full: \(taken) bytes")

        let failed = try await bob.event("failed") { FileTransferEndToEndTests.isEvent("fileFailed", id: id)($0) }
        let reason = try #require(failed["reason"] as? String)
        #expect(reason.contains("cannot write the file") && reason.contains("No space left on device"), "\(reason)")
        let told = try await alice.event("told") { FileTransferEndToEndTests.isEvent("fileFailed", id: id)($0) }
        #expect((told["reason"] as? String)?.contains("No space left on device") == true, "\(told)")
        #expect(scratch.listing(Self.inside(bob, downloads)) == ["filler"], "the partial file is removed")
        alice.send(json: ["cmd": "send", "text": "the disk is full"])
        try await bob.event("chat goes on") { $0["event"] as? String == "message" && $0["text"] as? String == "the disk is full" }
        bob.send(json: ["cmd": "dm", "to": "alice", "text": "so it is"])
        try await alice.event("and back") { $0["event"] as? String == "message" && $0["text"] as? String == "so it is" }

        // Space back: the same process takes the next file, whole.
        try FileManager.default.removeItem(atPath: filler)
        let next = FileTransferEndToEndTests.randomBytes(100_003)
        let second = try await FileTransferEndToEndTests.offer(try scratch.file("next.bin", bytes: next), from: alice, to: bob, name: "bob")
        bob.send(json: ["cmd": "acceptFile", "id": second])
        let done = try await bob.event("saved") { FileTransferEndToEndTests.isEvent("fileDone", id: second)($0) }
        #expect(done["path"] as? String == downloads + "/next.bin")
        #expect(scratch.contents(Self.inside(bob, downloads + "/next.bin")) == next)
        #expect(scratch.listing(Self.inside(bob, downloads)) == ["next.bin"])
        #expect(bob.isRunning)
    }
}

/// Whether this machine lets a test mount a tmpfs in a private mount
/// namespace (apart from the suite: its trait cannot name the suite).
enum PrivateMount {
    static let unshare = "/usr/bin/unshare"

    /// Root, and `unshare -m` works here (not in every container).
    static let available: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: unshare) else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: unshare)
        probe.arguments = ["-m", "--propagation", "private", "/bin/true"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()
}
