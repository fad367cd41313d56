/// A terminal's input over time: `KeyDecoder` plus the rule that tells a
/// lone Escape press from the start of an arrow key's sequence. A terminal
/// writes one key's sequence at once, so an ESC with nothing after it for
/// `escapeWait` is the Escape key.
///
/// Pure, on explicit time: the shell passes its clock's uptime with each
/// read and sleeps on that clock until `pauseDue`, then calls `paused`;
/// a test passes times and never waits.
public struct KeyInput: Sendable {
    /// How long input must pause before a buffered ESC is the Escape key
    /// (a sequence's bytes come in one write, microseconds apart).
    public static let escapeWait = Duration.milliseconds(50)

    private var decoder = KeyDecoder()
    /// When a pause settles the bytes held (nil: none are held).
    public private(set) var pauseDue: Duration?

    public init() {}

    /// The keys `bytes`, read at `now`, complete.
    public mutating func read(_ bytes: some Sequence<UInt8>, at now: Duration) -> [ScreenKey] {
        let keys = decoder.decode(bytes)
        pauseDue = decoder.waitsForPause ? now + Self.escapeWait : nil
        return keys
    }

    /// The clock reached `now`: if input paused long enough, what it held
    /// settles (a lone ESC becomes `.escape`); an earlier wake-up is a no-op.
    public mutating func paused(at now: Duration) -> [ScreenKey] {
        guard let due = pauseDue, now >= due else { return [] }
        pauseDue = nil
        return decoder.flush()
    }
}
