import ChatCrypto
import LANChatHarness
import TestSupport

extension RawPeer {
    /// A raw peer holding the identity key `seed` names (`TestNetwork.key`),
    /// as a `TestNode` of that seed would: the same seed is the same
    /// identity, so a test can copy a live node's key.
    convenience init(connectingTo port: Int, seed: UInt64, _ nickname: String, groupSecret: GroupSecret? = nil) throws {
        try self.init(connectingTo: port, key: TestNetwork.key(seed), nickname: nickname, groupSecret: groupSecret)
    }
}
