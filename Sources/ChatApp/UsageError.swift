/// A command line that cannot run. Printed as one line, then exit 64.
public struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { "lanchat: \(message) (see 'lanchat --help')" }

    /// BSD sysexits EX_USAGE.
    public static let exitCode: Int32 = 64
}
