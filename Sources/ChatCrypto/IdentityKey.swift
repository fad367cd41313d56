import CCrypto
import ChatCore

/// A node's identity: an Ed25519 key pair. The public key is the identity;
/// its node number (and so its `#tag`) is derived from it, so a number can
/// no longer be chosen, only computed.
///
/// File format (`identity.key`): exactly the 32-byte Ed25519 private seed
/// (RFC 8032), raw, nothing else. The public key is recomputed on load.
public struct IdentityKey: Sendable {
    public let publicKey: Public
    private let seed: [UInt8]
    /// Signs on contexts initialised once for this key.
    private let signer: Ed25519Signer

    /// A fresh key from libcrypto's keygen.
    public static func generate() throws(CryptoError) -> IdentityKey {
        let handle = try EVPKey.generateHandle(CCRYPTO_PKEY_ED25519)
        return IdentityKey(seed: try EVPKey.rawPrivate(handle.key), publicKey: Public(trusted: try EVPKey.rawPublic(handle.key)),
                           signingKey: handle)
    }

    private init(seed: [UInt8], publicKey: Public, signingKey: EVPKeyHandle) {
        self.seed = seed
        self.publicKey = publicKey
        signer = Ed25519Signer(key: signingKey)
    }

    /// Rebuilds a key from its 32-byte seed.
    public init(seed: [UInt8]) throws(CryptoError) {
        try LibCrypto.requireLength(seed, Ed25519.seedByteCount, "Ed25519 seed")
        let handle = try EVPKey.privateHandle(CCRYPTO_PKEY_ED25519, seed)
        self.init(seed: seed, publicKey: Public(trusted: try EVPKey.rawPublic(handle.key)), signingKey: handle)
    }

    /// Parses `identity.key` contents: the raw 32-byte seed.
    public init(fileContents: [UInt8]) throws(CryptoError) {
        guard fileContents.count == Ed25519.seedByteCount else {
            throw .malformedKeyFile("an identity key file holds exactly 32 bytes, this one \(fileContents.count)")
        }
        try self.init(seed: fileContents)
    }

    /// The bytes to write to `identity.key` (mode 0600).
    public var fileContents: [UInt8] { seed }

    public var nodeNumber: NodeNumber { publicKey.nodeNumber }

    /// A 64-byte Ed25519 signature over `message`.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try signer.sign(message)
    }

    /// An Ed25519 public key: what peers know a node by.
    public struct Public: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: [UInt8]

        /// Any 32 bytes; whether they are a valid point is found out when a
        /// signature is verified (and fails).
        public init(rawValue: [UInt8]) throws(CryptoError) {
            try LibCrypto.requireLength(rawValue, Ed25519.publicKeyByteCount, "Ed25519 public key")
            self.rawValue = rawValue
        }

        fileprivate init(trusted rawValue: [UInt8]) { self.rawValue = rawValue }

        public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            Ed25519.verify(signature, message: message, publicKey: rawValue)
        }

        /// The node number: the first 8 bytes of
        /// SHA-256("lanchat node number" || publicKey), big-endian, masked to
        /// 53 bits; 0 becomes 1. Always inside `NodeNumber.validRange`.
        public var nodeNumber: NodeNumber {
            let digest = SHA256.hash(Array("lanchat node number".utf8) + rawValue)
            let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & NodeNumber.validRange.upperBound
            return NodeNumber(rawValue: max(value, 1))!
        }

        /// Hex of the first 16 bytes of SHA-256(publicKey), in 8 groups of 4
        /// digits: `3f2a 9c01 77de 0b41 c2e8 5a90 1d6f e403`. 128 bits: enough
        /// to compare by eye or read over the phone.
        public var fingerprint: String {
            let hex = SHA256.hash(rawValue).prefix(16).map { byte in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
            var groups: [Substring] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let end = hex.index(index, offsetBy: 4)
                groups.append(hex[index..<end])
                index = end
            }
            return groups.joined(separator: " ")
        }

        public var description: String { fingerprint }
    }
}
