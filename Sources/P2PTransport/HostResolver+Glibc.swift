#if canImport(Glibc)
import Glibc

/// Name resolution for static peers. getaddrinfo(3) blocks (DNS), so it
/// runs on a detached task, never on the service's actor.
enum HostResolver {
    static func resolve(_ host: String, port: Int) async throws(TransportError) -> IPv4Endpoint {
        if let endpoint = IPv4Endpoint(host: host, port: port) { return endpoint }
        let result = await Task.detached { () -> Result<IPv4Endpoint, TransportError> in
            var hints = addrinfo()
            hints.ai_family = AF_INET
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, nil, &hints, &list)
            guard status == 0, let first = list else {
                return .failure(.unresolvedHost(host, reason: String(cString: gai_strerror(status))))
            }
            defer { freeaddrinfo(list) }
            guard let address = first.pointee.ai_addr else {
                return .failure(.unresolvedHost(host, reason: "no address"))
            }
            let value = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
            }
            return .success(IPv4Endpoint(address: value, port: port))
        }.value
        return try result.get()
    }
}
#endif
