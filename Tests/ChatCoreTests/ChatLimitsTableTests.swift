import ChatCore
import Testing
import TestSupport

/// docs/OPERATIONS.md's ChatLimits table is the code's, row for row.
@Suite struct ChatLimitsTableTests {
    @Test func operationsDocumentListsEveryLimitWithItsValue() throws {
        #expect(try ProjectDocument.limitRows("ChatLimits") == ChatLimits.documentedRows.map(\.markdown))
    }

    @Test func rowsNameDistinctLimits() {
        let names = ChatLimits.documentedRows.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(ChatLimits.documentedRows.contains(LimitRow("maxMessageCharacters", 240, "characters", "one message's text, as grapheme clusters")))
    }

    @Test func durationsReadAsSecondsOrMilliseconds() {
        #expect(LimitRow("t", Duration.seconds(30), "m").markdown == "| `t` | 30 | seconds | m |")
        #expect(LimitRow("t", Duration.milliseconds(250), "m").markdown == "| `t` | 250 | milliseconds | m |")
        #expect(LimitRow("t", Duration.milliseconds(1500), "m").markdown == "| `t` | 1500 | milliseconds | m |")
        #expect(ChatLimits.documentedRows.contains(LimitRow("outboxMaxRetry", Duration.seconds(30), "the longest wait between a DM's retries")))
        #expect(Outbox.backoff(afterAttempts: 100) == ChatLimits.outboxMaxRetry)
    }
}
