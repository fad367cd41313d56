/// A key press as the reducer sees it, decoded from terminal bytes by
/// `KeyDecoder`.
public enum ScreenKey: Hashable, Sendable {
    /// Printable text (one or more graphemes, e.g. an IME-composed run).
    case text(String)
    case enter, tab, backTab, backspace, escape, delete
    case up, down, left, right, pageUp, pageDown, home, end
    /// F1...F12.
    case function(Int)
    /// Ctrl plus a letter, lowercased ("c" for Ctrl-C): a C0 byte.
    case control(Character)
    /// The key with Alt (or Meta) held: ESC before it, or xterm's modifier
    /// parameter (`ESC[1;3D` is `.alt(.left)`). Alt-b is `.alt(.text("b"))`.
    indirect case alt(ScreenKey)
    /// A navigation key with Ctrl held (`ESC[1;5D` is `.ctrl(.left)`).
    indirect case ctrl(ScreenKey)
    /// Bracketed paste: everything between `ESC[200~` and `ESC[201~`, line
    /// ends as "\n". Kept apart from typing so it is never sent line by line.
    case paste(String)
    case mouse(MouseEvent)
}
