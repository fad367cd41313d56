/// How lanchat v2 uses Noise (PROTOCOL.md, "Handshake, records, identity,
/// group secret, test vectors"): one prologue for every link; XX, or
/// XXpsk0+psk3 with the group's psk at both psk tokens when the node has a
/// group secret.
extension NoiseHandshake {
    /// Mixed into every lanchat v2 handshake: a node of another protocol or
    /// version fails the handshake instead of misreading it.
    public static let lanchatPrologue = Array("lanchat v2".utf8)

    /// The pattern a lanchat v2 link uses: `.XXpsk0psk3` with a group secret
    /// (psk0 so a node with another secret fails on message 1 and tells the
    /// dialler nothing), else `.XX`.
    public static func lanchatPattern(hasGroupSecret: Bool) -> NoisePattern {
        hasGroupSecret ? .XXpsk0psk3 : .XX
    }

    /// A lanchat v2 link handshake: `.XXpsk0psk3` with `groupSecret.psk`, else `.XX`.
    public static func lanchat(role: Role, staticKey: X25519KeyPair, groupSecret: GroupSecret?) throws(CryptoError) -> NoiseHandshake {
        try NoiseHandshake(pattern: lanchatPattern(hasGroupSecret: groupSecret != nil), role: role, prologue: lanchatPrologue,
                           staticKey: staticKey, psk: groupSecret?.psk)
    }
}
