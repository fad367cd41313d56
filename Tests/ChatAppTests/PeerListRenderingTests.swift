import ChatCore
import ChatNode
import Foundation
import ChatApp
import Testing

/// `/peers` and the JSON `peers` reply list the peers only heard of
/// (beacons) beside the linked ones: above the overlay's threshold most of
/// a LAN is only heard of, and a user still sees who is there.
@Suite struct PeerListRenderingTests {
    let plain = ConsoleRenderer(useColor: false, timeZone: TimeZone(identifier: "UTC")!)
    static let bob = PeerInfo(number: NodeNumber(rawValue: 0xB0B)!, nickname: "bob", stage: "ios", instanceId: "i", address: "10.0.0.2:7000")
    static let carol = PeerInfo(number: NodeNumber(rawValue: 0xCA01)!, nickname: "carol", instanceId: "j", address: "10.0.0.3:7001")
    static let dave = PeerInfo(number: NodeNumber(rawValue: 0xDA7E)!, nickname: "dave", stage: "web", instanceId: "k", address: "10.0.0.4:7002")

    static func heard(_ info: PeerInfo) -> PeerListing {
        PeerListing(info: info, displayName: "\(info.nickname)#\(info.number.shortTag)", linked: false)
    }

    @Test func heardPeersFollowTheLinkedOnesUnderALineThatSaysSo() {
        let lines = plain.peers([PeerListing(info: Self.bob, displayName: "bob"), Self.heard(Self.carol), Self.heard(Self.dave)])
        #expect(lines == [
            "  bob [ios]  10.0.0.2:7000",
            "-- 2 more heard on the LAN, not linked (names as their beacons say):",
            "  carol#ca01  10.0.0.3:7001",
            "  dave#da7e [web]  10.0.0.4:7002",
        ])
        // Linked peers only: the list as before.
        #expect(plain.peers([PeerListing(info: Self.bob, displayName: "bob")]) == ["  bob [ios]  10.0.0.2:7000"])
    }

    @Test func withNobodyLinkedTheListSaysSoAndStillNamesWhoIsHeard() {
        #expect(plain.peers([Self.heard(Self.carol)]) == [
            "-- no peers linked yet",
            "-- 1 more heard on the LAN, not linked (names as their beacons say):",
            "  carol#ca01  10.0.0.3:7001",
        ])
        // Linked peers there, but the filter let none through.
        #expect(plain.peers([Self.heard(Self.dave)], filter: .stage("web"), linked: 3).first == "-- no linked peers match filter web")
    }

    @Test func aHeardPeersTextNeverReachesTheTerminalRaw() {
        var evil = Self.carol
        evil.nickname = "ca\u{1B}[2Jrol\u{07}"
        evil.stage = "st\u{1B}]0;x\u{07}age"
        evil.address = "10.0.0.3:7001\u{9B}"
        let lines = plain.peers([PeerListing(info: evil, displayName: "ca\u{1B}[2Jrol\u{07}#ca01", linked: false)])
        #expect(lines.count == 3)
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        }
    }

    @Test func jsonSaysWhichPeersAreLinked() {
        #expect(JSONEventEncoder.peer(Self.bob, name: "bob", linked: true)["linked"] as? Bool == true)
        let heard = JSONEventEncoder.peer(Self.carol, name: "carol#ca01", linked: false)
        #expect(heard["linked"] as? Bool == false && heard["name"] as? String == "carol#ca01" && heard["address"] as? String == "10.0.0.3:7001")
        #expect(heard["fingerprint"] == nil && heard["identityKey"] == nil)
        // Other events that carry a peer (joins, whois) have no such field.
        #expect(JSONEventEncoder.peer(Self.bob, name: "bob")["linked"] == nil)
    }
}
