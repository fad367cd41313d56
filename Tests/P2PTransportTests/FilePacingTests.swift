import ChatCore
@testable import P2PTransport
import Testing

/// `--file-rate` paces records that leave the receiver silent for well
/// under its link's timeout, at every rate the option takes.
@Suite struct FilePacingTests {
    @Test(arguments: [1, 2, 3, 7, 100, 255, 256, 257, 1_000, 65_536, 100_000_000])
    func everyRateSendsARecordAtLeastEverySecond(kib: Int) {
        let pacing = FilePacing(kibPerSecond: kib)
        #expect(pacing.recordBytes >= 1024 && pacing.recordBytes <= FileTransferLimits.chunkBytes)
        #expect(pacing.pause <= .seconds(1))
        #expect(pacing.pause < .seconds(FileTransferLimits.idleTimeoutSeconds))
        // The rate holds: record / pause is the asked rate, within rounding
        // (a pause under a microsecond rounds to none).
        guard pacing.pause > .zero else {
            #expect(Double(pacing.recordBytes) / (Double(kib) * 1024) < 1e-6)
            return
        }
        let micros = Double(pacing.pause.components.seconds) * 1e6 + Double(pacing.pause.components.attoseconds) / 1e12
        let rate = Double(pacing.recordBytes) / micros * 1e6
        #expect(abs(rate - Double(kib) * 1024) / (Double(kib) * 1024) < 0.01)
    }

    @Test func fastRatesSendWholeRecords() {
        #expect(FilePacing(kibPerSecond: 1_000).recordBytes == FileTransferLimits.chunkBytes)
        #expect(FilePacing(kibPerSecond: 1).recordBytes == 1024)
        #expect(FilePacing.unpaced.pause == .zero)
    }
}
