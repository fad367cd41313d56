import ChatCore
import Foundation

/// Fuzz target: `DiscoveryBeacon.decode`, which reads every datagram that
/// reaches the discovery port from anyone on the LAN.
///
/// The input is one datagram. Decoding either throws a
/// `DiscoveryBeacon.DecodeError` or returns a beacon whose fields obey the
/// rules (names, port, instance id) and which survives encode → decode.
@_cdecl("LLVMFuzzerTestOneInput")
public func beaconParsingFuzzTarget(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let beacon: DiscoveryBeacon
    do {
        beacon = try DiscoveryBeacon.decode(bytes)
    } catch {
        return 0
    }
    fuzzCheck(bytes.count <= DiscoveryBeacon.maxDatagramSize, "accepted a \(bytes.count)-byte datagram")
    fuzzCheck(beacon.proto == DiscoveryBeacon.protocolMarker && beacon.version >= 1, "accepted another protocol")
    fuzzCheck((1...65535).contains(beacon.tcpPort), "accepted tcpPort \(beacon.tcpPort)")
    fuzzCheck(InstanceID.isValid(beacon.instanceId), "accepted a bad instance id")
    fuzzCheck((try? NodeName.validated(beacon.nickname)) == beacon.nickname, "accepted a bad nickname")
    if let stage = beacon.stage {
        fuzzCheck((try? NodeName.validated(stage)) == stage, "accepted a bad stage")
    }
    let encoded = beacon.encoded()
    // Our own beacons must fit one datagram whatever the names hold.
    fuzzCheck(encoded.count <= DiscoveryBeacon.maxDatagramSize, "a valid beacon encodes to \(encoded.count) bytes")
    fuzzCheck((try? DiscoveryBeacon.decode(encoded)) == beacon, "beacon changed through encode and decode")
    return 0
}
