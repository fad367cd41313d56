import Foundation

/// What a `fileOffer` frame's `content` says (PROTOCOL.md, "File
/// transfer"): the file's name, size and SHA-256, and the port the sender
/// takes transfer links on. Decoding checks every field; a peer can lie.
public struct FileOffer: Hashable, Sendable {
    /// Largest size an offer may name (1 PiB): bounds the arithmetic, not
    /// what a disk holds (accepting checks free space).
    public static let maxSize: Int64 = 1 << 50
    /// Longest name, in UTF-8 bytes, as the sender sends it.
    public static let maxNameBytes = 255

    public var name: String
    public var size: Int64
    /// Lowercase hex, 64 digits.
    public var sha256: String
    public var port: Int

    public init(name: String, size: Int64, sha256: String, port: Int) {
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.port = port
    }

    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        case malformed(String)
        public var description: String {
            switch self { case .malformed(let why): "malformed file offer: \(why)" }
        }
    }

    /// The `content` text: a JSON object with sorted keys.
    public var content: String {
        let object: [String: Any] = ["name": name, "size": size, "sha256": sha256, "port": port]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads and checks a `fileOffer` frame's `content`.
    public init(content: String) throws(Failure) {
        guard content.utf8.count <= 4096, let data = content.data(using: .utf8),
              let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .malformed("content is not a JSON object")
        }
        guard let name = object["name"] as? String, !name.isEmpty, name.utf8.count <= Self.maxNameBytes else {
            throw .malformed("name must be 1 to \(Self.maxNameBytes) bytes")
        }
        guard let sizeNumber = object["size"] as? NSNumber, let size = Int64(exactly: sizeNumber.doubleValue),
              (0...Self.maxSize).contains(size) else {
            throw .malformed("size must be a whole number from 0 to \(Self.maxSize)")
        }
        guard let sha = object["sha256"] as? String, Self.isDigest(sha) else {
            throw .malformed("sha256 must be 64 lowercase hex digits")
        }
        guard let portNumber = object["port"] as? NSNumber, let port = Int(exactly: portNumber.doubleValue),
              (1...65_535).contains(port) else {
            throw .malformed("port must be 1 to 65535")
        }
        self.init(name: name, size: size, sha256: sha, port: port)
    }

    /// 64 lowercase hex digits.
    public static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The same file (a repeated offer may change only the port).
    public func describesSameFile(as other: FileOffer) -> Bool {
        name == other.name && size == other.size && sha256 == other.sha256
    }
}
