import Foundation

/// Writes whole lines to a file descriptor (stdout, stderr), one writer at a
/// time, so lines from different tasks never interleave.
public actor LineWriter {
    private let handle: FileHandle

    public init(_ handle: FileHandle) { self.handle = handle }

    public static let standardOutput = LineWriter(.standardOutput)

    public func write(_ line: String) {
        var data = Data(line.utf8)
        data.append(0x0A)
        // A closed stdout (the reader went away) must not kill the node.
        try? handle.write(contentsOf: data)
    }
}
