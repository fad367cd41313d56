/// How many links the process's descriptor limit can carry.
///
/// Running out of descriptors is not a failure the node can handle: the
/// Dispatch runtime's worker monitor opens /proc/<tid>/stat about once a
/// second and traps (SIGILL, "workq: registered worker exited prematurely")
/// when that open fails with EMFILE. A beacon flood that made the node dial
/// without bound killed it exactly so. Links therefore never take the last
/// descriptors: `maxLinks` is lowered to leave a reserve for the runtime,
/// the store, logs and the node's own sockets.
enum DescriptorBudget {
    /// Descriptors kept free: an eighth of the limit, at least 48.
    static func reserve(forLimit limit: Int) -> Int { max(48, limit / 8) }

    /// Most links the process limit `limit` allows (at least 1).
    static func maxLinks(forLimit limit: Int) -> Int { max(1, limit - reserve(forLimit: limit)) }

    /// `limits` with `maxLinks` (and the caps below it) fitted to `limit`.
    static func fitted(_ limits: PeerLimits, toLimit limit: Int?) -> PeerLimits {
        guard let limit else { return limits }
        var fitted = limits
        fitted.maxLinks = min(limits.maxLinks, maxLinks(forLimit: limit))
        fitted.maxPendingLinks = min(limits.maxPendingLinks, fitted.maxLinks)
        fitted.maxPendingDials = min(limits.maxPendingDials, fitted.maxLinks)
        return fitted
    }
}
