/// One line a person or a script entered (stdin, a terminal), or the length of a line too long to keep.
public enum EnteredLine: Sendable, Equatable {
    case line(String)
    /// A line of `bytes` bytes (without its end) over the limit: skipped to
    /// its end, never held whole.
    case tooLong(bytes: Int)
}
