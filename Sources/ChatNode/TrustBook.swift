import ChatCore
import Synchronization

/// Each known node's trust, readable by front ends without waiting for the
/// node (as `NameBook` is for names): the verified mark on a message's
/// author, the list, `/whois`. Published after each key ledger change and
/// each sighting.
final class TrustBook: Sendable {
    private let entries = Mutex<[NodeNumber: PeerTrust]>([:])

    func publish(_ trust: [NodeNumber: PeerTrust]) {
        entries.withLock { $0 = trust }
    }

    func trust(of number: NodeNumber) -> PeerTrust? {
        entries.withLock { $0[number] }
    }

    var verified: Set<NodeNumber> {
        entries.withLock { Set($0.filter { $0.value.isVerified }.keys) }
    }
}
