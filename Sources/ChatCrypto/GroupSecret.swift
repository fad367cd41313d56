/// A private group's shared secret, read from `--secret-file`. Nodes link
/// only when their secrets match (the psk of Noise XXpsk0+psk3, at both
/// tokens) and seal their beacons with it (`BeaconSealKey`), so outsiders
/// learn no member's name or number and are not even dialled.
///
/// File format: any bytes, 1 byte to 64 KiB; one trailing "\n" or "\r\n"
/// is ignored so `echo word > file` works. From the contents C:
///
///     psk        = SHA-256("lanchat group psk" || C)
///     beacon key = SHA-256("lanchat group beacon" || C)
///     seal key   = HKDF-SHA256(beacon key, info "lanchat sealed beacon v2")
///
/// Separate keys so a beacon reveals nothing about the psk. (`beaconTag`,
/// an HMAC under the beacon key, tagged beacons before they were sealed;
/// it stays as the published check of the beacon key.)
public struct GroupSecret: Sendable {
    public static let maxFileLength = 64 * 1024
    public static let tagByteCount = 32

    /// The 32-byte Noise psk.
    public let psk: [UInt8]
    /// Also the input of `BeaconSealKey`.
    let beaconKey: [UInt8]

    public init(fileContents: [UInt8]) throws(CryptoError) {
        var contents = fileContents
        if contents.last == 0x0A { contents.removeLast() }
        if contents.last == 0x0D, fileContents.last == 0x0A { contents.removeLast() }
        guard !contents.isEmpty else { throw .malformedKeyFile("the group secret file is empty") }
        guard fileContents.count <= Self.maxFileLength else {
            throw .malformedKeyFile("the group secret file is over \(Self.maxFileLength) bytes")
        }
        psk = SHA256.hash(Array("lanchat group psk".utf8) + contents)
        beaconKey = SHA256.hash(Array("lanchat group beacon".utf8) + contents)
    }

    /// A 32-byte HMAC-SHA256 tag that authenticates `datagram` to the group.
    public func beaconTag(_ datagram: [UInt8]) -> [UInt8] {
        SHA256.hmac(key: beaconKey, datagram)
    }

    /// Checks a beacon's tag in constant time.
    public func isValidBeaconTag(_ tag: [UInt8], for datagram: [UInt8]) -> Bool {
        SHA256.verifyHMAC(tag, key: beaconKey, datagram)
    }
}
