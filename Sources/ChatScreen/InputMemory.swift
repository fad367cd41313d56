/// What the input line remembers between keys and lines: the kill buffer,
/// each room's history, and a Tab completion in progress. Kept beside
/// `ScreenState.input` so the line itself stays a plain value.
public struct InputMemory: Hashable, Sendable {
    public var kill = KillBuffer()
    public var history = InputHistory()
    public var completion: TabCompletion?
    /// The key legend is up because F1 or `?` asked for it: the same key
    /// closes it again instead of opening it anew ("??" types a "?").
    public var legendOpen = false

    public init() {}
}
