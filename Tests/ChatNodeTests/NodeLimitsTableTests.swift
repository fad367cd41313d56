import ChatCore
import ChatNode
import Testing
import TestSupport

/// docs/OPERATIONS.md's NodeLimits table is the code's, row for row.
@Suite struct NodeLimitsTableTests {
    @Test func operationsDocumentListsEveryLimitWithItsValue() throws {
        #expect(try ProjectDocument.limitRows("NodeLimits") == NodeLimits.documentedRows.map(\.markdown))
    }

    @Test func rowsNameDistinctLimitsWithTheirValues() {
        let names = NodeLimits.documentedRows.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(NodeLimits.documentedRows.contains { $0.name == "catchUpPageSize" && $0.value == "\(NodeLimits.catchUpPageSize)" })
        #expect(NodeLimits.documentedRows.contains { $0.name == "maxClockSkew" && $0.value == "300" && $0.unit == "seconds" })
        // The options' default is the documented one.
        #expect(NodeOptions().catchUpTimeout == NodeLimits.catchUpTimeout)
    }
}
