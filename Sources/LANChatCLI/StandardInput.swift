import Foundation

/// Lines from standard input as an async stream, read on a thread of their
/// own because `readLine` blocks. The stream finishes at end of input.
public enum StandardInput {
    public static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(line)
            }
            continuation.finish()
        }
        thread.name = "lanchat-stdin"
        thread.start()
        return stream
    }
}
