import ChatCore
import Foundation
@testable import P2PTransport
import Testing

/// PROTOCOL.md's examples are real: each one decodes as what it claims,
/// and every known frame type has one.
@Suite struct ProtocolDocumentTests {
    private func examples() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("PROTOCOL.md"), encoding: .utf8)
        // ```json blocks; wrapped lines are joined (the wrap is for reading only).
        return text.components(separatedBy: "```json\n").dropFirst().map {
            $0.components(separatedBy: "\n```").first!.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        }
    }

    @Test func everyExampleDecodes() throws {
        let blocks = try examples()
        let beacons = blocks.filter { $0.contains(#""proto":"lanchat""#) }
        #expect(beacons.count == 1)
        for beacon in beacons { _ = try DiscoveryBeacon.decode(Array(beacon.utf8)) }
        var types: Set<String> = []
        for frame in blocks where !frame.contains(#""proto":"lanchat""#) {
            let payload = try P2PFrameCodec.decodeLine(Array(frame.utf8))
            #expect(Array(frame.utf8).count <= P2PFrameCodec.maxLineLength)
            if payload.type.isDirect { #expect(payload.targetNumber != nil, "\(payload.type)") }
            types.insert(payload.type.name)
        }
        #expect(types == Set(PayloadType.known.map(\.name)))
    }
}
