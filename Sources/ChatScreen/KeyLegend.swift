/// The keys of the full-screen client, as F1 (or `?` on an empty line)
/// shows them over the room: weechat's keys wherever they fit. Lines stay
/// under 57 columns so the legend reads unwrapped at 80x24.
public enum KeyLegend {
    public static let lines = [
        "keys (/help lists the commands)",
        "Enter        send (a paste, ↵ and all, as one message)",
        "Left/Right   a character (with Ctrl, or Alt-B/F: a word)",
        "Home/End     start/end of the line (also Ctrl-A/E)",
        "Backspace    delete before  Delete, Ctrl-D  under cursor",
        "Ctrl-K/U     cut to the end / to the start of the line",
        "Ctrl-W       cut a word back   Alt-D  a word forward",
        "Ctrl-Y       put back what was cut  Alt-Enter  new line",
        "Alt-R        cut the whole line  Ctrl-T  swap characters",
        "Up/Down      earlier lines typed in this conversation",
        "Tab          complete a name or /command (again: next)",
        "PgUp/PgDn    scroll a page   Alt-Up/Down  one message",
        "Alt-Home/End oldest loaded / newest message",
        "Alt-←/→, Ctrl-P/N, Tab on an empty line: conversations",
        "Alt-1..9     the conversation at that place in the list",
        "Alt-A  next unread   Alt-Y/N  accept/decline file offer",
        "Ctrl-R       the last /search results (arrows, Enter)",
        "mouse        wheel scrolls, a click opens a conversation",
        "Ctrl-L       redraw   Esc  close   Ctrl-C  quit",
        "F1, or ? on an empty line: this legend (?? types a ?)",
    ]
}
