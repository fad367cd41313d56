#if canImport(Glibc)
import ChatCore
import ChatCrypto
import Foundation
import Glibc

/// The receiver's side: dial the sender, resume from the partial file's
/// length, verify, flush.
extension FileTransferService {
    @discardableResult
    public func fetch(_ request: FetchRequest) -> Bool {
        guard let token = beginLink(request.id) else { return false }  // one link per transfer
        Thread { [self] in
            Self.runBehindChat()
            let outcome: FileLinkEvent?
            do {
                try runFetch(request)
                outcome = nil
            } catch let failure as FileLinkFailure {
                switch failure {
                case .final(let reason): outcome = .failed(request.id, reason: reason)
                case .receiverFailed(let reason):
                    outcome = .failed(request.id, reason: "the sender: \(TerminalText.sanitize(reason))")
                }
            } catch {
                outcome = .interrupted(request.id, reason: "\(error)")
            }
            // The link is forgotten before the node hears of its end, so a
            // fetch the node starts on hearing it is never refused as a
            // second link.
            endLink(request.id, token: token)
            if let outcome { report(outcome, unlessInterrupted: request.id) }
        }.start()
        return true
    }

    private func runFetch(_ request: FetchRequest) throws {
        let file = open(request.partialPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard file >= 0 else { throw FileLinkFailure.final("cannot open the partial file: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(file) }
        // Never a symlink (O_NOFOLLOW), and never readable by others, whoever made it.
        guard fchmod(file, 0o600) == 0 else { throw FileLinkFailure.final("cannot set the partial file's mode") }
        var info = stat()
        guard fstat(file, &info) == 0 else { throw FileLinkFailure.final("cannot stat the partial file") }
        var have = Int64(info.st_size)
        if have > request.size {  // not ours to trust: start over
            guard ftruncate(file, 0) == 0 else { throw FileLinkFailure.final("cannot truncate the partial file") }
            have = 0
        }
        // Hash state is not kept: the prefix already on disk is hashed again.
        var hasher = SHA256Stream()
        try Self.hashPrefix(of: file, count: have, into: hasher)
        var alreadyVerified = false
        if have == request.size {
            // Whole already (a crash between the last byte and the rename).
            if SHA256Stream.hex(hasher.finish()) == request.sha256 {
                alreadyVerified = true
            } else {
                // Whole but wrong: start over.
                guard ftruncate(file, 0) == 0 else { throw FileLinkFailure.final("cannot truncate the partial file") }
                have = 0
                hasher = SHA256Stream()
            }
        }
        do {
            try exchange(request, file: file, have: have, hasher: hasher, alreadyVerified: alreadyVerified)
        } catch where alreadyVerified {
            // The sender is gone or forgot the offer: the file is verified here anyway.
            report(.progress(request.id, bytes: have))
            report(.received(request.id))
        }
    }

    /// One link: dial, handshake, then the records until `end`. With
    /// `alreadyVerified` the whole file is on disk and checked: the link
    /// only tells the sender (`start` at the end, `end`, `verified`).
    private func exchange(_ request: FetchRequest, file: Int32, have start: Int64, hasher: SHA256Stream, alreadyVerified: Bool) throws {
        var have = start
        guard let endpoint = IPv4Endpoint(host: request.host, port: request.port) else {
            throw FileLinkFailure.final("the sender's address \(request.host) is not an IPv4 address")
        }
        let connection = try FileLinkConnection(dialing: endpoint, timeoutSeconds: FileTransferLimits.handshakeTimeoutSeconds)
        guard attach(connection.fd, to: request.id) else { return }
        // Runs before `connection` can close: no shutdown of a reused number.
        defer { detach(connection.fd, from: request.id) }
        count { $0.linksDialled += 1 }
        var handshake = try FileLinkHandshake(role: .initiator, credential: credential, groupSecret: groupSecret)
        try connection.writeFrame(try handshake.start())
        let (reply, sender) = try handshake.finish(try connection.readFrame(), request: FileLinkRequest(id: request.id, offset: have))
        guard FileLinkHandshake.matches(sender, base64: request.peerKey) else {
            throw FileLinkFailure.final("the transfer link's key is not the key of the peer that offered the file")
        }
        try connection.writeFrame(reply)
        connection.cipher = handshake.transport
        switch try connection.readRecord() {
        case .start(let offset, let size) where offset == have && size == request.size: break
        // "busy": the sender's caps are full for now; dial again later.
        case .fail(let reason) where reason.hasPrefix("busy"): throw FileLinkConnection.Failure.badFrame("the sender is busy")
        case .fail(let reason): throw FileLinkFailure.receiverFailed(reason)
        default: throw FileLinkFailure.final("the sender did not start at offset \(have)")
        }
        connection.setTimeout(seconds: FileTransferLimits.idleTimeoutSeconds)
        // Hashing beside decrypting and writing, not after them; each
        // record is opened straight into the pipeline's next buffer.
        let pipeline = HashPipeline(hasher: hasher, threadStart: Self.runBehindChat)
        defer { pipeline.close() }
        var lastReport: Int64?  // the first record reports at once, whatever the clock reads
        while true {
            switch try connection.readRecord(into: pipeline.room()) {
            case .data(let offset, let bytes):
                guard offset == have, have + Int64(bytes.count) <= request.size else {
                    try? connection.writeRecord(.fail("data out of place"))
                    throw FileLinkFailure.final("the sender sent bytes out of place")
                }
                try Self.write(bytes, to: file, at: have)
                pipeline.add(bytes)
                have += Int64(bytes.count)
                count { $0.bytesReceived += Int64(bytes.count) }
                let now = uptimeMillis()
                if lastReport.map({ now - $0 >= FileTransferLimits.progressIntervalMillis }) ?? true {
                    lastReport = now
                    report(.progress(request.id, bytes: have))
                }
            case .other(.end):
                guard have == request.size else { throw FileLinkFailure.final("the sender ended at \(have) of \(request.size) bytes") }
                guard alreadyVerified || SHA256Stream.hex(pipeline.finish()) == request.sha256 else {
                    try? connection.writeRecord(.fail("SHA-256 mismatch"))
                    throw FileLinkFailure.final("the file's SHA-256 does not match the offer")
                }
                guard fsync(file) == 0 else { throw FileLinkFailure.final("cannot flush the file: \(String(cString: strerror(errno)))") }
                try connection.writeRecord(.verified)
                report(.progress(request.id, bytes: have))
                report(.received(request.id))
                return
            case .other(.fail(let reason)):
                throw FileLinkFailure.receiverFailed(reason)
            default:
                throw FileLinkFailure.final("unexpected record from the sender")
            }
        }
    }

    /// pwrite all of `bytes`; a full disk is a failure the user must see.
    static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let count = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count > 0 { done += count; continue }
            if count < 0 && errno == EINTR { continue }
            throw FileLinkFailure.final("cannot write the file: \(String(cString: strerror(errno)))")
        }
    }

    static func hashPrefix(of fd: Int32, count: Int64, into hasher: SHA256Stream) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        while done < count {
            let want = Int(min(Int64(buffer.count), count - done))
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw FileLinkFailure.final("cannot read the partial file") }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            done += Int64(got)
        }
    }

    /// Size and modification time (ns) of a regular file.
    static func statFile(_ path: String) throws -> (size: Int64, modified: Int64) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileLinkFailure.final("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw FileLinkFailure.final("\(path) is not a regular file") }
        return (Int64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// Size, modification time and SHA-256 of the file at `path`. A digest
    /// is kept per version of a file (device, inode, size, modification
    /// and change times), so offering it again, to another peer or after
    /// a decline, does not read it again; any write moves the change time
    /// (which no one can set), so a changed file is hashed anew. Serving
    /// trusts size and modification time just the same, and the receiver
    /// checks the digest whatever happens.
    public func inspect(path: String) throws -> FileFacts {
        let version = try Self.fileVersion(path)
        if let known = state.withLock({ $0.digests[version] }) {
            count { $0.digestsReused += 1 }
            return known
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileLinkFailure.final("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        let hasher = SHA256Stream()
        try Self.hashPrefix(of: fd, count: version.size, into: hasher)
        // Changed while hashed: the digest describes no version of the file.
        guard try Self.fileVersion(path) == version else { throw FileLinkFailure.final("\(path) changed while it was read") }
        let facts = FileFacts(size: version.size, modified: version.modified, sha256: SHA256Stream.hex(hasher.finish()))
        state.withLock { state in
            if state.digests.count >= Self.maxDigests { state.digests.removeAll() }
            state.digests[version] = facts
            state.counters.filesHashed += 1
        }
        return facts
    }

    /// What identifies one version of a regular file.
    static func fileVersion(_ path: String) throws -> FileVersion {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileLinkFailure.final("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw FileLinkFailure.final("\(path) is not a regular file") }
        return FileVersion(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                           modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                           changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }
}

/// One version of a file, as `stat` tells it (`FileTransferService.inspect`).
struct FileVersion: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var changed: Int64
}

extension FileLinkFailure: CustomStringConvertible {
    var description: String {
        switch self {
        case .final(let reason): reason
        case .receiverFailed(let reason): "the peer: \(reason)"
        }
    }
}
#endif
