import ChatCore
import Testing
import TestSupport

/// README's ChatLimits table is the code's, row for row.
@Suite struct ChatLimitsTableTests {
    @Test func readmeListsEveryLimitWithItsValue() throws {
        #expect(try ReadmeTable.limitRows("ChatLimits") == ChatLimits.documentedRows.map(\.markdown))
    }

    @Test func rowsNameDistinctLimits() {
        let names = ChatLimits.documentedRows.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(ChatLimits.documentedRows.contains(LimitRow("maxMessageCharacters", 240, "characters", "one message's text, as grapheme clusters")))
    }
}
