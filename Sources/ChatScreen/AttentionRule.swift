import ChatCore

/// Which messages want the reader's attention (weechat's highlights): a DM
/// from a peer, or a message that names the reader, their nickname as a
/// whole word in any case ("Alice:", "@alice", "hi ALICE!", not "malice").
/// Such a message is highlighted, rings the bell (unless `--no-bell`) and
/// counts in the terminal title; the side list marks rooms that hold one.
public enum AttentionRule {
    public static func wants(_ message: Message, me: NodeNumber, myName: String) -> Bool {
        guard message.senderNumber != me else { return false }
        if message.room.peer != nil { return true }
        return names(message.content, myName)
    }

    /// Whether `text` holds `name` as a word: not inside a longer run of
    /// letters, digits or underscores. Case-insensitive; O(text).
    public static func names(_ text: String, _ name: String) -> Bool {
        let needle = Array(name.lowercased())
        guard !needle.isEmpty else { return false }
        let haystack = Array(text.lowercased())
        guard haystack.count >= needle.count else { return false }
        func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start] == needle[0], Array(haystack[start..<(start + needle.count)]) == needle {
                let before = start == 0 || !isWordCharacter(haystack[start - 1])
                let end = start + needle.count
                let after = end == haystack.count || !isWordCharacter(haystack[end])
                if before && after { return true }
            }
            start += 1
        }
        return false
    }
}
