/// Everything that can go wrong in the transport layer that a caller can see.
///
/// System call failures carry the call's name, `errno` and its `strerror`
/// text, captured at the call (errno is gone a call later). Would-block and
/// EINTR never surface here: the socket layer retries or reports them as a
/// normal outcome.
public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call failed.
    case systemCall(name: String, errno: Int32, message: String)
    /// A configured address is not a dotted IPv4 address or not "host:port".
    case invalidAddress(String)
    /// A host name did not resolve to an IPv4 address.
    case unresolvedHost(String, reason: String)
    /// A configuration value is out of range (e.g. a port past 65535).
    case invalidConfiguration(String)
    /// `start()` was called on a service that is running or was stopped; a
    /// service runs once, make a new one to restart.
    case alreadyStarted

    public var description: String {
        switch self {
        case .systemCall(let name, let errno, let message): "\(name) failed: \(message) (errno \(errno))"
        case .invalidAddress(let address): "invalid address \"\(address)\""
        case .unresolvedHost(let host, let reason): "cannot resolve \"\(host)\": \(reason)"
        case .invalidConfiguration(let reason): "invalid configuration: \(reason)"
        case .alreadyStarted: "the service was already started"
        }
    }

    /// The errno of a failed system call, nil for other errors.
    public var errno: Int32? {
        if case .systemCall(_, let errno, _) = self { return errno }
        return nil
    }
}
