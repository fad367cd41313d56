import ChatCore
import Foundation
@testable import P2PTransport
import Testing

@Suite struct WireFormatTests {
    private let identity = NodeIdentity(number: NodeNumber(rawValue: 4711)!, nickname: "alice", stage: "ios")

    @Test func beaconRoundTripsAndStaysSmall() throws {
        let beacon = DiscoveryBeacon(kind: .beacon, identity: identity, tcpPort: 40123, instanceId: InstanceID.make())
        let bytes = beacon.encoded()
        #expect(try DiscoveryBeacon.decode(bytes) == beacon)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"instanceId":"#))
        #expect(text.contains(#""proto":"lanchat""#) && text.contains(#""kind":"beacon""#))
        // The largest names (32 four-byte characters each) still fit.
        let widest = NodeIdentity(number: NodeNumber(rawValue: (1 << 53) - 1)!,
                                  nickname: String(repeating: "🦄", count: 32), stage: String(repeating: "🦄", count: 32))
        let big = DiscoveryBeacon(kind: .leave, identity: widest, tcpPort: 65535, instanceId: String(repeating: "a", count: 64))
        #expect(big.encoded().count < DiscoveryBeacon.maxDatagramSize)
        #expect(try DiscoveryBeacon.decode(big.encoded()) == big)
    }

    /// `links`: how many links the sender had; optional (older nodes and
    /// sealed beacons leave it out).
    @Test func aBeaconSaysHowManyLinksItsSenderHas() throws {
        var beacon = DiscoveryBeacon(kind: .beacon, identity: identity, tcpPort: 40123, instanceId: InstanceID.make())
        #expect(!String(decoding: beacon.encoded(), as: UTF8.self).contains("links"))
        beacon.links = 9
        #expect(String(decoding: beacon.encoded(), as: UTF8.self).contains(#""links":9"#))
        #expect(try DiscoveryBeacon.decode(beacon.encoded()).links == 9)
    }

    @Test func beaconFromANewerVersionIsReadIgnoringUnknownFields() throws {
        let json = #"{"proto":"lanchat","version":2,"kind":"beacon","number":7,"nickname":" bob ","tcpPort":9,"instanceId":"x-1","extra":[1]}"#
        let beacon = try DiscoveryBeacon.decode(Array(json.utf8))
        #expect(beacon.version == 2 && beacon.nickname == "bob" && beacon.stage == nil)
    }

    @Test(arguments: [
        ("not json", "malformed"),
        (#"{"hello":1}"#, "otherProtocol"),
        (#"{"proto":"ipmsg","version":1,"kind":"beacon","number":7,"nickname":"b","tcpPort":9,"instanceId":"x"}"#, "otherProtocol"),
        (#"{"proto":"lanchat","version":1,"kind":"shout","number":7,"nickname":"b","tcpPort":9,"instanceId":"x"}"#, "malformed"),
        (#"{"proto":"lanchat","version":0,"kind":"beacon","number":7,"nickname":"b","tcpPort":9,"instanceId":"x"}"#, "invalidField"),
        (#"{"proto":"lanchat","version":1,"kind":"beacon","number":0,"nickname":"b","tcpPort":9,"instanceId":"x"}"#, "malformed"),
        (#"{"proto":"lanchat","version":1,"kind":"beacon","number":7,"nickname":"b","tcpPort":70000,"instanceId":"x"}"#, "invalidField"),
        (#"{"proto":"lanchat","version":1,"kind":"beacon","number":7,"nickname":"b","tcpPort":9,"instanceId":"a b"}"#, "invalidField"),
        (#"{"proto":"lanchat","version":1,"kind":"beacon","number":7,"nickname":"b\u001b[2J","tcpPort":9,"instanceId":"x"}"#, "invalidField"),
        (#"{"proto":"lanchat","version":1,"kind":"beacon","number":7,"nickname":"","tcpPort":9,"instanceId":"x"}"#, "invalidField"),
        (#"{"proto":"lanchat","version":1,"kind":"beacon","number":7,"nickname":"b","tcpPort":9,"instanceId":"x","links":-1}"#, "invalidField"),
        (#"{"proto":"lanchat","version":1,"kind":"beacon","number":7,"nickname":"b","tcpPort":9,"instanceId":"x","links":"3"}"#, "malformed"),
    ])
    func malformedBeaconsAreNamed(json: String, expected: String) {
        #expect {
            _ = try DiscoveryBeacon.decode(Array(json.utf8))
        } throws: { error in
            guard let error = error as? DiscoveryBeacon.DecodeError else { return false }
            switch error {
            case .malformed: return expected == "malformed"
            case .otherProtocol: return expected == "otherProtocol"
            case .invalidField: return expected == "invalidField"
            case .tooLarge: return expected == "tooLarge"
            }
        }
    }

    @Test func oversizedDatagramIsRefusedBeforeParsing() {
        let bytes = [UInt8](repeating: 0x20, count: DiscoveryBeacon.maxDatagramSize + 1)
        #expect(throws: DiscoveryBeacon.DecodeError.tooLarge(DiscoveryBeacon.maxDatagramSize + 1)) {
            try DiscoveryBeacon.decode(bytes)
        }
    }

    @Test func instanceIDs() {
        #expect(InstanceID.isValid(InstanceID.make()))
        #expect(InstanceID.isValid("A-z-0-9"))
        #expect(!InstanceID.isValid(""))
        #expect(!InstanceID.isValid(String(repeating: "a", count: 65)))
        #expect(!InstanceID.isValid("ä"))
        #expect(!InstanceID.isValid("a_b"))
    }

    @Test(arguments: [
        ("127.0.0.1:4000", "127.0.0.1", 4000), ("peer-2:47475", "peer-2", 47475), (" host:1 ", "host", 1),
    ])
    func staticPeerAddresses(text: String, host: String, port: Int) throws {
        #expect(try HostPort(parsing: text) == HostPort(host: host, port: port))
    }

    @Test(arguments: ["host", "host:", ":80", "host:0", "host:65536", "host:http", "::1:80", "a b:80"])
    func badStaticPeerAddresses(text: String) {
        #expect(throws: TransportError.invalidAddress(text)) { try HostPort(parsing: text) }
    }

    @Test func dottedQuads() {
        #expect(IPv4Endpoint.parseDottedQuad("192.168.1.255") == 0xC0A8_01FF)
        #expect(IPv4Endpoint.dottedQuad(0x7FFF_FFFF) == "127.255.255.255")
        #expect(IPv4Endpoint(host: "10.0.0.1", port: 70000) == nil)
        #expect(IPv4Endpoint(address: 0x7F00_0001, port: 80).description == "127.0.0.1:80")
    }
}
