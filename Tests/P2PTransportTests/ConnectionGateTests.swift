import ChatCore
@testable import P2PTransport
import Testing

/// The pure pieces behind the limits: the per-address connection gate and
/// what a frame costs its link's budget.
@Suite struct ConnectionGateTests {
    private let alice: UInt32 = 0x0A00_0001
    private let bob: UInt32 = 0x0A00_0002

    @Test func aBurstThenTheRefillRate() {
        var gate = ConnectionGate(burst: 3, perSecond: 2)
        let burst = (0..<4).map { _ in gate.admit(alice, at: .zero) }
        #expect(burst == [true, true, true, false])
        // Another address has a budget of its own.
        let bobAdmitted = gate.admit(bob, at: .zero)
        #expect(bobAdmitted)
        // Half a second refills one attempt (2 per second), not two.
        let later = [gate.admit(alice, at: .milliseconds(500)), gate.admit(alice, at: .milliseconds(500))]
        #expect(later == [true, false])
    }

    @Test func idleAddressesAreForgottenAndTheTableIsBounded() {
        var gate = ConnectionGate(burst: 2, perSecond: 1, maxAddresses: 4)
        for address in 0..<4 as Range<UInt32> { _ = gate.admit(address, at: .zero) }
        #expect(gate.trackedAddresses == 4)
        // Full: a fifth address pushes out the stalest one.
        _ = gate.admit(100, at: .milliseconds(10))
        #expect(gate.trackedAddresses == 4)
        // After burst / perSecond = 2 s every bucket is full again.
        gate.forgetIdle(at: .seconds(3))
        #expect(gate.trackedAddresses == 0)
    }

    @Test func aFrameCostsOnePlusOnePerFullFourKiB() {
        let limits = PeerLimits()
        #expect(limits.frameCost(byteCount: 1) == 1)
        #expect(limits.frameCost(byteCount: 4_095) == 1)
        #expect(limits.frameCost(byteCount: 4_096) == 2)
        #expect(limits.frameCost(byteCount: 64 * 1_024) == 17)
    }

    @Test func limitsAreValidated() throws {
        try PeerLimits().validate()
        var zeroLinks = PeerLimits()
        zeroLinks.maxLinks = 0
        #expect(throws: TransportError.self) { try zeroLinks.validate() }
        var noRate = PeerLimits()
        noRate.framesPerSecond = 0
        #expect(throws: TransportError.self) { try noRate.validate() }
        var tinyBurst = PeerLimits()
        tinyBurst.frameBurst = 10  // cannot pay for one 64 KiB frame (17)
        #expect(throws: TransportError.self) { try tinyBurst.validate() }
    }
}
