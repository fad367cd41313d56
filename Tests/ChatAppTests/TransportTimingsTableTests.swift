import ChatCore
import P2PTransport
import Testing
import TestSupport

/// docs/OPERATIONS.md's P2PConfiguration table is the defaults', row for row (its
/// `limits` are checked by PeerLimitsTableTests).
@Suite struct TransportTimingsTableTests {
    @Test func operationsDocumentListsEveryTimingWithItsDefault() throws {
        #expect(try ProjectDocument.limitRows("P2PConfiguration") == P2PConfiguration().documentedRows.map(\.markdown))
    }

    @Test func rowsFollowTheValues() {
        var configuration = P2PConfiguration()
        configuration.handshakeTimeout = .milliseconds(1500)
        configuration.writeTimeout = .seconds(9)
        let rows = configuration.documentedRows
        #expect(rows.contains { $0.name == "handshakeTimeout" && $0.value == "1500" && $0.unit == "milliseconds" })
        #expect(rows.contains { $0.name == "writeTimeout" && $0.value == "9" && $0.unit == "seconds" })
        let names = rows.map(\.name)
        #expect(Set(names).count == names.count)
    }
}
