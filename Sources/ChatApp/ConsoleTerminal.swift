import Foundation

/// The terminal under the line console: a byte sink, a key source, its
/// width, and the mode switch. Glibc specifics live in
/// `ConsoleTerminal+Glibc.swift`.
final class ConsoleTerminal: Sendable {
    let input: Int32
    let output: Int32

    init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    /// Writes to stdout whole, however the kernel splits it.
    static func writeOut(_ text: String) {
        TerminalIO.writeAll(Array(text.utf8), to: 1)
    }

    func write(_ text: String) {
        TerminalIO.writeAll(Array(text.utf8), to: output)
    }
}
