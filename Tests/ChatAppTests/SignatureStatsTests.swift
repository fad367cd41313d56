import ChatNode
import Foundation
import ChatApp
import Testing

/// `/stats` shows what signature checking refused.
@Suite struct SignatureStatsTests {
    @Test func statsNameEachRefusal() {
        var counters = NodeCounters()
        counters.signatureRefusals = ["unsigned": 1, "badSignature": 2]
        counters.relayRefusals = ["badSignature": 5]
        counters.relayedClaimingSelf = 4
        counters.catchUpUnsolicited = 3
        let lines = ConsoleRenderer(useColor: false).stats(counters, transport: [:])
        #expect(lines.contains("-- signatures refused: badSignature 2, unsigned 1, not relayed: badSignature 5, relayed as mine 4, unsolicited history replies 3"))
        let none = ConsoleRenderer(useColor: false).stats(NodeCounters(), transport: [:])
        #expect(none.contains { $0.hasPrefix("-- signatures refused: none, not relayed: none,") })
    }
}
