import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns SIGINT and SIGTERM into a stream, so shutdown runs as ordinary
/// async code (send leave, close links, flush) instead of in a handler.
public final class SignalWatcher: Sendable {
    public let signals: AsyncStream<Int32>
    // DispatchSourceSignal is thread-safe to hold; it is only cancelled in deinit.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    public init(_ numbers: [Int32] = [SIGINT, SIGTERM]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        signals = stream
        sources = numbers.map { number in
            signal(number, SIG_IGN)  // let the dispatch source see it instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
