import ChatCore
import ChatCrypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The node's identity key in its data directory: `identity.key`, the raw
/// 32-byte Ed25519 seed (see `IdentityKey`), mode 0600. Created on first
/// start; refused, as ssh refuses a private key, when group or others may
/// read or write it. A v1 directory's `node-number` is renamed
/// `node-number.v1` when its key is made, so the change is told once.
extension DataDirectory {
    /// What `identityKey()` found.
    public struct LoadedIdentity: Sendable {
        public let key: IdentityKey
        /// Set once: the v1 node number this directory used before it got a key.
        public let replacedNumber: NodeNumber?
        /// True when the key was created by this call.
        public let created: Bool

        /// The line to log when a v1 directory changed number, else nil.
        public var migrationNotice: String? {
            replacedNumber.map {
                "this data directory was node \($0) (protocol v1); it is now node \(key.nodeNumber), "
                    + "derived from its new identity key (old number kept in node-number.v1)"
            }
        }
    }

    public var identityKeyPath: String { path + "/identity.key" }

    /// Loads `identity.key`, creating it on first use.
    public func identityKey() throws(Failure) -> LoadedIdentity {
        let file = identityKeyPath
        var status = stat()
        if stat(file, &status) == 0 {
            return LoadedIdentity(key: try readKey(file, status: status), replacedNumber: try retireNodeNumber(), created: false)
        }
        guard errno == ENOENT else { throw Failure(description: "cannot read \(file): \(String(cString: strerror(errno)))") }
        let key: IdentityKey
        do {
            key = try IdentityKey.generate()
        } catch {
            throw Failure(description: "cannot create an identity key: \(error)")
        }
        try writeKey(key, to: file)
        return LoadedIdentity(key: key, replacedNumber: try retireNodeNumber(), created: true)
    }

    private func readKey(_ file: String, status: stat) throws(Failure) -> IdentityKey {
        guard status.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "\(file) is not a regular file") }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw Failure(description: """
                permissions \(String(mode, radix: 8)) for '\(file)' are too open: \
                an identity key must not be accessible by others; run chmod 600 '\(file)'
                """)
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw Failure(description: "cannot read \(file)")
        }
        do {
            return try IdentityKey(fileContents: Array(data))
        } catch {
            throw Failure(description: "\(file) is not an identity key (\(error)); move it away to get a new identity")
        }
    }

    /// Writes a temporary file with mode 0600, syncs it, then renames it into
    /// place, so a crash leaves either no key or a whole one.
    private func writeKey(_ key: IdentityKey, to file: String) throws(Failure) {
        let temporary = file + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = key.fileContents
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fchmod(descriptor, 0o600) == 0 && fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot write \(file): \(reason)")
        }
        let directory = open(path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// A v1 `node-number` left beside the key: renamed `node-number.v1` and
    /// returned (once), so the caller can say the number changed.
    private func retireNodeNumber() throws(Failure) -> NodeNumber? {
        let file = path + "/node-number"
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        guard rename(file, file + ".v1") == 0 else {
            throw Failure(description: "cannot rename \(file): \(String(cString: strerror(errno)))")
        }
        return UInt64(text.trimmingWhitespace()).flatMap(NodeNumber.init(rawValue:))
    }
}
