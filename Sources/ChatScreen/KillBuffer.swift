/// What Ctrl-K/U/W (and Alt-D, Alt-Backspace) cut, for Ctrl-Y to put back.
/// Kills in a row gather into one piece, as in readline: Ctrl-W three
/// times then Ctrl-Y gives back all three words in their order.
public struct KillBuffer: Hashable, Sendable {
    public private(set) var text = ""
    /// The last key was a kill: the next one joins this piece.
    private var gathering = false

    public init() {}

    /// Records `killed`, cut before the cursor (`backward`) or after it.
    public mutating func kill(_ killed: String, backward: Bool) {
        guard !killed.isEmpty else { return }
        if gathering { text = backward ? killed + text : text + killed } else { text = killed }
        gathering = true
    }

    /// Any other key: the next kill starts a new piece.
    public mutating func interrupt() { gathering = false }
}
