/// How lanchat v2 uses Noise (PROTOCOL.md, "Handshake, records, identity,
/// group secret, test vectors"): one prologue for every link; XX, or
/// XXpsk3 with the group's psk when the node has a group secret.
extension NoiseHandshake {
    /// Mixed into every lanchat v2 handshake: a node of another protocol or
    /// version fails the handshake instead of misreading it.
    public static let lanchatPrologue = Array("lanchat v2".utf8)

    /// A lanchat v2 link handshake: `.XXpsk3` with `groupSecret.psk`, else `.XX`.
    public static func lanchat(role: Role, staticKey: X25519KeyPair, groupSecret: GroupSecret?) throws(CryptoError) -> NoiseHandshake {
        try NoiseHandshake(pattern: groupSecret == nil ? .XX : .XXpsk3, role: role, prologue: lanchatPrologue,
                           staticKey: staticKey, psk: groupSecret?.psk)
    }
}
