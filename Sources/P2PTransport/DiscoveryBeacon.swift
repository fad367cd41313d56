import ChatCore
import Foundation

/// The discovery datagram: one JSON object in one UDP datagram of at most
/// `maxDatagramSize` bytes, sent to the discovery port. Example:
///
///     {"proto":"lanchat","version":1,"kind":"beacon","number":4711,"nickname":"alice",
///      "stage":"ios","tcpPort":40123,"instanceId":"6f1c1e9e-5d3a-4c51-9a0e-2b7f1d0c9a11"}
///
/// `kind` is "beacon" (I am here, dial me at `tcpPort` on the datagram's
/// source address) or "leave" (I am shutting down). `links` (optional):
/// how many links the sender had established when it sent it; on a
/// large LAN only a beacon with fewer than `NewcomerAnswers.settledLinks`
/// is answered as a newcomer's. Unknown fields are
/// ignored so later versions can add some; `version` is the beacon format's
/// version, 1 here, and higher versions are read as far as they agree.
public struct DiscoveryBeacon: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        case beacon
        case leave
    }

    public static let protocolMarker = "lanchat"
    public static let formatVersion = 1
    public static let maxDatagramSize = 1024

    public var proto: String
    public var version: Int
    public var kind: Kind
    public var number: NodeNumber
    public var nickname: String
    public var stage: String?
    public var tcpPort: Int
    public var instanceId: String
    /// Links the sender had established (nil: a sender that does not say).
    /// Links, not nodes heard of: a flood of invented beacons cannot make
    /// a real newcomer look settled.
    public var links: Int?

    public init(kind: Kind, identity: NodeIdentity, tcpPort: Int, instanceId: String) {
        proto = Self.protocolMarker
        version = Self.formatVersion
        self.kind = kind
        number = identity.number
        nickname = identity.nickname
        stage = identity.stage
        self.tcpPort = tcpPort
        self.instanceId = instanceId
    }

    /// Why a datagram on the discovery port was not a beacon.
    public enum DecodeError: Error, Hashable, Sendable {
        case tooLarge(Int)
        case malformed(String)
        case otherProtocol
        case invalidField(String)
    }

    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings, integers and an enum only: encoding cannot fail.
        return Array(try! encoder.encode(self))
    }

    /// Parses and checks one datagram. Names must pass `NodeName.validated`
    /// (they reach terminals), the port must be a TCP port and the instance
    /// id must look like one (`InstanceID.isValid`).
    public static func decode(_ bytes: some Collection<UInt8>) throws(DecodeError) -> DiscoveryBeacon {
        guard bytes.count <= maxDatagramSize else { throw .tooLarge(bytes.count) }
        var beacon: DiscoveryBeacon
        do {
            beacon = try JSONDecoder().decode(DiscoveryBeacon.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) where key.stringValue == "proto" {
            throw .otherProtocol
        } catch {
            throw .malformed(String(describing: error).prefix(120).description)
        }
        guard beacon.proto == protocolMarker else { throw .otherProtocol }
        guard beacon.version >= 1 else { throw .invalidField("version") }
        guard (1...65535).contains(beacon.tcpPort) else { throw .invalidField("tcpPort") }
        guard InstanceID.isValid(beacon.instanceId) else { throw .invalidField("instanceId") }
        if let links = beacon.links, links < 0 { throw .invalidField("links") }
        do {
            beacon.nickname = try NodeName.validated(beacon.nickname)
            if let stage = beacon.stage { beacon.stage = try NodeName.validated(stage) }
        } catch {
            throw .invalidField("nickname or stage: \(error)")
        }
        return beacon
    }
}

/// A node's per-start instance id: 1...64 characters of ASCII letters,
/// digits and "-" (this build sends a lowercase UUID).
public enum InstanceID {
    public static func make() -> String { UUID().uuidString.lowercased() }

    public static func isValid(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }
}
