import ChatCore
import ChatCrypto
import Foundation

/// A private group's beacon (PROTOCOL.md 2.6): in clear only that a lanchat
/// node listens on `tcpPort` at the datagram's source address; who it is
/// (number, nickname, stage, instance id, beacon or leave) is sealed under
/// the group's `BeaconSealKey`. Example (one line on the wire):
///
///     {"proto":"lanchat","version":2,"tcpPort":40123,"sealed":"<492 characters of base64>"}
///
/// `sealed` = base64(nonce (12) || ChaChaPoly(plaintext) || tag (16)), the
/// plaintext always `plaintextByteCount` bytes (zero-padded, so every
/// group beacon has one length whatever the names), and the associated
/// data binds the sender's address, the port and the format version:
/// the same bytes sent from elsewhere do not open. The plaintext's time
/// (the sender's clock) rejects a beacon replayed a day later.
///
/// Plaintext, integers big-endian:
///
///     u8 kind (0 beacon, 1 leave) | u64 number | i64 time (ms since 1970)
///     | u8 n, instanceId (n bytes) | u8 n, nickname | u8 n, stage (n = 0: none)
///     | zero bytes up to 340
enum SealedBeacon {
    static let formatVersion = 2
    /// 1 + 8 + 8 + (1 + 64) + (1 + 128) + (1 + 128): the largest fields fit.
    static let plaintextByteCount = 340
    static let sealedByteCount = BeaconSealKey.nonceByteCount + plaintextByteCount + ChaChaPoly.tagByteCount
    static let context = Array("lanchat sealed beacon".utf8)
    /// How far a beacon's time may be from the receiver's clock. Wide: the
    /// clocks of a LAN's machines may be hours off (lan-test's clock-skew
    /// scenario runs two hours apart), and a replay from the sender's own
    /// address within the window only repeats what was true.
    static let maxClockDifferenceMillis: Int64 = 25 * 3_600_000

    /// Why a datagram did not read as a sealed beacon of our group.
    enum OpenError: Error, Hashable, Sendable {
        /// A plain (unsealed) lanchat beacon: a node without a group secret.
        case notSealed
        /// Not a sealed beacon's shape (JSON, fields, sizes, plaintext rules).
        case malformed(String)
        /// The seal does not open: another group, a changed byte, or sent
        /// from another address or port than it was sealed for.
        case unopened
        /// Opened, but its time is over `maxClockDifferenceMillis` from ours.
        case stale(ageMillis: Int64)
    }

    /// The datagram for `beacon` sent from `address` (host order).
    static func seal(_ beacon: DiscoveryBeacon, from address: UInt32, time: Int64, key: BeaconSealKey,
                     nonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        let plaintext = try plaintext(beacon, time: time)
        let sealed = try key.seal(nonce: nonce, associatedData: associatedData(address: address, tcpPort: beacon.tcpPort),
                                  plaintext: plaintext)
        // Built by hand: JSONEncoder would escape base64's "/" as "\/".
        let text = #"{"proto":"lanchat","version":\#(formatVersion),"tcpPort":\#(beacon.tcpPort),"sealed":"\#(Data(nonce + sealed).base64EncodedString())"}"#
        return Array(text.utf8)
    }

    /// "lanchat sealed beacon" || u8 version || u32 address || u16 tcpPort.
    static func associatedData(address: UInt32, tcpPort: Int) -> [UInt8] {
        var data = context
        data.append(UInt8(formatVersion))
        data.append(contentsOf: withUnsafeBytes(of: address.bigEndian, Array.init))
        data.append(contentsOf: withUnsafeBytes(of: UInt16(truncatingIfNeeded: tcpPort).bigEndian, Array.init))
        return data
    }

    static func plaintext(_ beacon: DiscoveryBeacon, time: Int64) throws(CryptoError) -> [UInt8] {
        var out: [UInt8] = [beacon.kind == .leave ? 1 : 0]
        out.append(contentsOf: withUnsafeBytes(of: beacon.number.rawValue.bigEndian, Array.init))
        out.append(contentsOf: withUnsafeBytes(of: time.bigEndian, Array.init))
        for (field, limit) in [(beacon.instanceId, 64), (beacon.nickname, 128), (beacon.stage ?? "", 128)] {
            let bytes = Array(field.utf8)
            guard bytes.count <= limit else { throw .invalidLength(what: "beacon field", expected: limit, got: bytes.count) }
            out.append(UInt8(bytes.count))
            out.append(contentsOf: bytes)
        }
        out.append(contentsOf: [UInt8](repeating: 0, count: plaintextByteCount - out.count))
        return out
    }

    /// The clear part: what anyone on the LAN reads.
    private struct Envelope: Decodable {
        var proto: String
        var version: Int
        var tcpPort: Int?
        var sealed: String?
    }

    /// Opens a datagram that came from `address`, at the receiver's time `now`.
    static func open(_ datagram: some Collection<UInt8>, from address: UInt32, key: BeaconSealKey,
                     now: Int64) throws(OpenError) -> DiscoveryBeacon {
        guard datagram.count <= DiscoveryBeacon.maxDatagramSize else { throw .malformed("over \(DiscoveryBeacon.maxDatagramSize) bytes") }
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: Data(datagram))
        } catch {
            throw .malformed("not a lanchat datagram")
        }
        guard envelope.proto == DiscoveryBeacon.protocolMarker else { throw .malformed("proto") }
        guard let text = envelope.sealed else { throw .notSealed }
        guard envelope.version == formatVersion, let tcpPort = envelope.tcpPort, (1...65535).contains(tcpPort) else {
            throw .malformed("version or tcpPort")
        }
        guard let bytes = Data(base64Encoded: text).map(Array.init), bytes.count == sealedByteCount else {
            throw .malformed("sealed is not \(sealedByteCount) bytes of base64")
        }
        let plaintext: [UInt8]
        do {
            plaintext = try key.open(nonce: Array(bytes[..<BeaconSealKey.nonceByteCount]),
                                     associatedData: associatedData(address: address, tcpPort: tcpPort),
                                     ciphertext: Array(bytes[BeaconSealKey.nonceByteCount...]))
        } catch {
            throw .unopened
        }
        let (beacon, time) = try read(plaintext, tcpPort: tcpPort)
        guard abs(now - time) <= maxClockDifferenceMillis else { throw .stale(ageMillis: now - time) }
        return beacon
    }

    /// The plaintext's fields, checked as a plain beacon's are (2.2): a
    /// member with the secret is still a peer that may lie.
    private static func read(_ plaintext: [UInt8], tcpPort: Int) throws(OpenError) -> (DiscoveryBeacon, Int64) {
        guard plaintext.count == plaintextByteCount, plaintext[0] <= 1 else { throw .malformed("kind") }
        func integer(at offset: Int) -> UInt64 {
            plaintext[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        guard let number = NodeNumber(rawValue: integer(at: 1)) else { throw .malformed("number") }
        let time = Int64(bitPattern: integer(at: 9))
        var offset = 17
        var fields: [String] = []
        for limit in [64, 128, 128] {
            let length = Int(plaintext[offset])
            guard length <= limit, offset + 1 + length <= plaintext.count,
                  let field = String(validating: plaintext[(offset + 1)..<(offset + 1 + length)], as: UTF8.self) else {
                throw .malformed("field lengths")
            }
            fields.append(field)
            offset += 1 + length
        }
        guard plaintext[offset...].allSatisfy({ $0 == 0 }) else { throw .malformed("padding") }
        guard InstanceID.isValid(fields[0]) else { throw .malformed("instanceId") }
        var beacon = DiscoveryBeacon(kind: plaintext[0] == 1 ? .leave : .beacon,
                                     identity: NodeIdentity(number: number, nickname: fields[1]),
                                     tcpPort: tcpPort, instanceId: fields[0])
        beacon.version = formatVersion
        do {
            beacon.nickname = try NodeName.validated(fields[1])
            beacon.stage = fields[2].isEmpty ? nil : try NodeName.validated(fields[2])
        } catch {
            throw .malformed("nickname or stage")
        }
        return (beacon, time)
    }
}
