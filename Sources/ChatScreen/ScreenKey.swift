/// A key press as the reducer sees it, decoded from terminal bytes by
/// `KeyDecoder`.
public enum ScreenKey: Hashable, Sendable {
    /// Printable text (one or more graphemes, e.g. a pasted or IME-composed run).
    case text(String)
    case enter, tab, backTab, backspace, escape
    case up, down, left, right, pageUp, pageDown, home, end
    /// Ctrl plus a letter, lowercased ("c" for Ctrl-C).
    case control(Character)
}
