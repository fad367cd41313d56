#if canImport(Glibc)
import ChatCore
import ChatCrypto
import Glibc

/// The raw peer driven from a thread of its own, blocking in poll(2)
/// instead of sleeping: how `lanchat-bench` links, floods and drains,
/// where a 5 ms poll step would be the figure. Never from a task of the
/// concurrency pool.
extension RawPeer {
    /// Dials 127.0.0.1:`port` and runs the whole handshake up to the
    /// acceptor's first record, with `key` and this peer's own hello.
    public static func link(to port: Int, key: IdentityKey, nickname: String,
                            within timeout: Duration = RawPeer.standardWait) throws -> RawPeer {
        let deadline = ContinuousClock.now + timeout
        let peer = try RawPeer(connectingTo: port, key: key, nickname: nickname)
        try peer.sendMessage1()
        try peer.readMessage2(try peer.blocking(until: deadline, "message 2") { try peer.handshakeMessage(0, "message 2") })
        try peer.sendMessage3()
        _ = try peer.blocking(until: deadline, "acceptance") { try peer.acceptance() }
        return peer
    }

    /// Waits, reading as input comes, until `step` has an answer.
    private func blocking<T>(until deadline: ContinuousClock.Instant, _ name: String, _ step: () throws -> T?) throws -> T {
        while true {
            if let answer = try step() { return answer }
            guard ContinuousClock.now < deadline else { throw Failure("no \(name) in time") }
            waitReadable(until: deadline)
        }
    }

    /// Writes all of `bytes` (after what is queued), blocking as long as the
    /// node takes to read them; throws when the node closed the link.
    public func write(_ bytes: [UInt8]) throws {
        guard writeAll(bytes, until: .now + .seconds(86_400)) else { throw Failure("the node closed the link") }
    }

    /// Reads until `count` records containing `marker` have arrived or
    /// `deadline` passes, and answers the node's pings: it hears nothing
    /// else from this peer and would otherwise cut it as dead while it
    /// sends. Returns how many marked records arrived.
    ///
    /// Lean on purpose, as the draining peers share the cores with the
    /// node they measure: each record is opened and searched for `marker`,
    /// neither decoded nor kept (`frames` does not show them).
    public func drain(records count: Int, containing marker: String, until deadline: ContinuousClock.Instant) -> Int {
        let needle = Array(marker.utf8)
        let ping = Array(#""type":"ping""#.utf8)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var seen = 0
        var lastPing = ContinuousClock.now
        while seen < count, ContinuousClock.now < deadline, !closedByPeer, streamFailure == nil {
            if ContinuousClock.now - lastPing > .seconds(1) {
                send(frame(.ping))
                lastPing = .now
            }
            switch buffer.withUnsafeMutableBytes({ Self.receive(fd, into: $0) }) {
            case .bytes(let got):
                do {
                    try splitter.append(buffer[0..<got])
                    while let record = try splitter.decode() {
                        let plaintext = try transport!.open(record)
                        if ByteSearch.contains(plaintext, needle) {
                            seen += 1
                        } else if ByteSearch.contains(plaintext, ping) {
                            send(frame(.pong))
                        }
                    }
                } catch {
                    streamFailure = "\(error)"  // a broken stream: what arrived so far is the answer
                }
            case .wouldBlock:
                Self.wait(for: Int16(POLLIN), on: fd, until: min(deadline, .now + .milliseconds(200)))
            case .closed:
                closedByPeer = true
            }
        }
        return seen
    }
}
#endif
