import ChatCore
import P2PTransport
import Testing
import TestSupport

/// docs/OPERATIONS.md's PeerLimits table is the defaults', row for row.
@Suite struct PeerLimitsTableTests {
    @Test func operationsDocumentListsEveryLimitWithItsDefault() throws {
        #expect(try ProjectDocument.limitRows("PeerLimits") == PeerLimits().documentedRows.map(\.markdown))
    }

    @Test func rowsFollowTheValues() {
        var limits = PeerLimits()
        limits.maxLinks = 7
        #expect(limits.documentedRows.contains { $0.name == "maxLinks" && $0.value == "7" })
        let names = limits.documentedRows.map(\.name)
        #expect(Set(names).count == names.count)
    }
}
