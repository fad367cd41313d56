import ChatCore
import ChatOverlay
import Foundation

/// Fuzz target: the overlay codec's byte parser against its reference.
///
/// `OverlayFrameParser` (through `decodeWithParser`) either steps aside or
/// answers, with a frame or an `OverlayFrameError`; whenever it answers,
/// JSONDecoder's path (`decodeWithJSONDecoder`, which also refuses
/// repeated keys) must give the same answer, header and frame or error.
/// And `decode`, what a link runs, gives the reference's answer always.
/// `decodeWithParser` is `package`: built with `-package-name` as SwiftPM does.
@_cdecl("LLVMFuzzerTestOneInput")
public func overlayDifferentialFuzzTarget(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let reference = outcome(bytes) { bytes throws(OverlayFrameError) in try OverlayFrameCodec.decodeWithJSONDecoder(bytes) }
    let parsed: String?
    do {
        parsed = try OverlayFrameCodec.decodeWithParser(bytes).map { "ok \($0.0) \($0.1)" }
    } catch {
        parsed = "error \(error)"
    }
    if let parsed {
        fuzzCheck(parsed == reference, "parser says \(parsed), JSONDecoder says \(reference)")
    }
    let decoded = outcome(bytes) { bytes throws(OverlayFrameError) in try OverlayFrameCodec.decode(bytes) }
    fuzzCheck(decoded == reference, "decode says \(decoded), JSONDecoder says \(reference)")
    return 0
}

/// Header and frame, or the error, as text (a frame is not Equatable with its header).
private func outcome(_ bytes: [UInt8],
                     _ decode: ([UInt8]) throws(OverlayFrameError) -> (OverlayFrameCodec.Header, OverlayFrame)) -> String {
    do {
        let (header, frame) = try decode(bytes)
        return "ok \(header) \(frame)"
    } catch {
        return "error \(error)"
    }
}
