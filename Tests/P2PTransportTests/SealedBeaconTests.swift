import ChatCore
@testable import ChatCrypto
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// A private group's beacon says in clear only "a lanchat node listens on
/// this port at this address": an outsider (no secret) reads no nickname,
/// stage, number or instance id, from the bytes or through the decoder; a
/// member reads them all; a changed byte, another address or port, or a
/// time a day off is refused. PROTOCOL.md 2.6 publishes the vector below.
@Suite struct SealedBeaconTests {
    static let beginMarker = "<!-- lanchat-sealed-beacon-vector:begin -->"
    static let endMarker = "<!-- lanchat-sealed-beacon-vector:end -->"
    static let time: Int64 = 1_732_147_200_000
    static let address: UInt32 = 0xC0A8_0114   // 192.168.1.20

    static func key(_ contents: String) throws -> BeaconSealKey {
        try BeaconSealKey(GroupSecret(fileContents: Array(contents.utf8)))
    }

    static func beacon(kind: DiscoveryBeacon.Kind = .beacon, nickname: String = "alice", stage: String? = "ios") -> DiscoveryBeacon {
        DiscoveryBeacon(kind: kind, identity: NodeIdentity(number: NodeNumber(rawValue: 869_989_602_747_584)!, nickname: nickname, stage: stage),
                        tcpPort: 40_123, instanceId: "6f1c1e9e-5d3a-4c51-9a0e-2b7f1d0c9a11")
    }

    static func sealed(_ beacon: DiscoveryBeacon = beacon(), key: BeaconSealKey, from address: UInt32 = address,
                       time: Int64 = time, nonce: [UInt8] = Array(0..<12)) throws -> [UInt8] {
        try SealedBeacon.seal(beacon, from: address, time: time, key: key, nonce: nonce)
    }

    @Test func aMemberReadsEveryFieldBack() throws {
        let group = try Self.key("our group\n")
        for original in [Self.beacon(), Self.beacon(kind: .leave, stage: nil), Self.beacon(nickname: "김철수 👩‍💻")] {
            let datagram = try Self.sealed(original, key: group)
            var expected = original
            expected.version = SealedBeacon.formatVersion
            #expect(try SealedBeacon.open(datagram, from: Self.address, key: group, now: Self.time + 1_000) == expected)
        }
    }

    @Test func anOutsiderLearnsOnlyThePortFromTheBytesAndTheDecoder() throws {
        let group = try Self.key("our group\n")
        let beacon = Self.beacon()
        let datagram = try Self.sealed(beacon, key: group)
        let text = String(decoding: datagram, as: UTF8.self)
        for secret in ["alice", "ios", String(beacon.number.rawValue), beacon.instanceId, beacon.number.shortTag] {
            #expect(!text.contains(secret), "\(secret) in clear: \(text)")
        }
        // The clear part is exactly proto, version, tcpPort and the opaque field.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(datagram)) as? [String: Any])
        #expect(Set(object.keys) == ["proto", "version", "tcpPort", "sealed"])
        #expect(object["tcpPort"] as? Int == 40_123)
        // A node without the secret does not read it as a beacon ...
        #expect(throws: DiscoveryBeacon.DecodeError.self) { try DiscoveryBeacon.decode(datagram) }
        // ... nor does one of another group, which cannot open it.
        #expect(throws: SealedBeacon.OpenError.unopened) {
            try SealedBeacon.open(datagram, from: Self.address, key: Self.key("other group"), now: Self.time)
        }
        // Every group beacon has one length whatever its names: the size says nothing either.
        let longest = try Self.sealed(Self.beacon(nickname: String(repeating: "가", count: 32), stage: String(repeating: "나", count: 32)),
                                      key: group)
        let shortest = try Self.sealed(Self.beacon(nickname: "a", stage: nil), key: group)
        #expect(longest.count == datagram.count && shortest.count == datagram.count)
        #expect(datagram.count <= DiscoveryBeacon.maxDatagramSize)
    }

    @Test func aChangedByteAnotherAddressOrPortOrAStaleTimeIsRefused() throws {
        let group = try Self.key("our group\n")
        let datagram = try Self.sealed(key: group)
        // Replayed from elsewhere: the address is in the associated data.
        #expect(throws: SealedBeacon.OpenError.unopened) {
            try SealedBeacon.open(datagram, from: Self.address + 1, key: group, now: Self.time)
        }
        // The clear port rewritten: the dial would go elsewhere.
        let moved = Array(String(decoding: datagram, as: UTF8.self).replacingOccurrences(of: "40123", with: "40124").utf8)
        #expect(throws: SealedBeacon.OpenError.unopened) { try SealedBeacon.open(moved, from: Self.address, key: group, now: Self.time) }
        // One bit of the opaque field flipped (a base64 digit changed).
        var text = String(decoding: datagram, as: UTF8.self)
        let digit = text.index(text.endIndex, offsetBy: -10)
        text.replaceSubrange(digit...digit, with: text[digit] == "A" ? "B" : "A")
        #expect(throws: SealedBeacon.OpenError.unopened) {
            try SealedBeacon.open(Array(text.utf8), from: Self.address, key: group, now: Self.time)
        }
        // A day and more old, or ahead.
        let window = SealedBeacon.maxClockDifferenceMillis
        #expect(throws: SealedBeacon.OpenError.stale(ageMillis: window + 1)) {
            try SealedBeacon.open(datagram, from: Self.address, key: group, now: Self.time + window + 1)
        }
        #expect(throws: SealedBeacon.OpenError.stale(ageMillis: -window - 1)) {
            try SealedBeacon.open(datagram, from: Self.address, key: group, now: Self.time - window - 1)
        }
        #expect(try SealedBeacon.open(datagram, from: Self.address, key: group, now: Self.time + window).number == Self.beacon().number)
        // A plain beacon is not sealed: a node without a secret.
        #expect(throws: SealedBeacon.OpenError.notSealed) {
            try SealedBeacon.open(Self.beacon().encoded(), from: Self.address, key: group, now: Self.time)
        }
    }

    @Test func malformedSealedBeaconsAreNamed() throws {
        let group = try Self.key("our group\n")
        let cases: [(String, String)] = [
            ("not JSON", "{"),
            ("short field", #"{"proto":"lanchat","version":2,"tcpPort":1,"sealed":"AAAA"}"#),
            ("port 0", #"{"proto":"lanchat","version":2,"tcpPort":0,"sealed":""#
                + Data(count: SealedBeacon.sealedByteCount).base64EncodedString() + #""}"#),
            ("other version", #"{"proto":"lanchat","version":3,"tcpPort":1,"sealed":""#
                + Data(count: SealedBeacon.sealedByteCount).base64EncodedString() + #""}"#),
            ("oversize", #"{"proto":"lanchat","pad":""# + String(repeating: "x", count: 1_024) + #""}"#),
        ]
        for (name, text) in cases {
            var verdict: SealedBeacon.OpenError?
            do {
                _ = try SealedBeacon.open(Array(text.utf8), from: Self.address, key: group, now: Self.time)
            } catch {
                verdict = error
            }
            guard case .malformed? = verdict else {
                Issue.record("\(name): \(String(describing: verdict)), not malformed")
                continue
            }
        }
        // A member's plaintext is checked like a plain beacon's: an invalid
        // name sealed with the right key is still refused.
        let bad = try Self.sealed(Self.beacon(nickname: "bad\u{0007}name"), key: group)
        #expect(throws: SealedBeacon.OpenError.malformed("nickname or stage")) {
            try SealedBeacon.open(bad, from: Self.address, key: group, now: Self.time)
        }
    }

    // MARK: - The published vector

    static func generatedVector() throws -> String {
        let secretFile = Array("our group\n".utf8)
        let group = try GroupSecret(fileContents: secretFile)
        let key = try BeaconSealKey(group)
        let beacon = Self.beacon()
        let nonce = Array<UInt8>(0..<12)
        let datagram = try Self.sealed(beacon, key: key, nonce: nonce)
        let vector: [String: Any] = [
            "group_secret_file": hexString(secretFile),
            "seal_key": hexString(key.key),
            "source_address": "192.168.1.20",
            "kind": "beacon", "number": beacon.number.rawValue, "nickname": beacon.nickname, "stage": beacon.stage ?? "",
            "instance_id": beacon.instanceId, "tcp_port": beacon.tcpPort, "time": Self.time,
            "nonce": hexString(nonce),
            "associated_data": hexString(SealedBeacon.associatedData(address: Self.address, tcpPort: beacon.tcpPort)),
            "plaintext": hexString(try SealedBeacon.plaintext(beacon, time: Self.time)),
            "datagram": String(decoding: datagram, as: UTF8.self),
        ]
        let data = try JSONSerialization.data(withJSONObject: vector, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    static func publishedVector() throws -> String? {
        let text = try ProjectDocument.wireProtocol.text()
        guard let begin = text.range(of: beginMarker), let end = text.range(of: endMarker) else { return nil }
        return text[begin.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("```") }.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func protocolDocumentPublishesThisExactVector() throws {
        let generated = try Self.generatedVector()
        let published = try #require(try Self.publishedVector(), "docs/PROTOCOL.md has no sealed beacon vector")
        if published != generated { print("docs/PROTOCOL.md sealed beacon vector should read:\n\(generated)") }
        #expect(published == generated)
        // And the published datagram opens as the beacon it names.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(published.utf8)) as? [String: Any])
        let datagram = Array((object["datagram"] as? String ?? "").utf8)
        #expect(try SealedBeacon.open(datagram, from: Self.address, key: Self.key("our group\n"), now: Self.time).nickname == "alice")
    }

    private static func hexString(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
