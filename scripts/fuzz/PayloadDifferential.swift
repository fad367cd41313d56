import ChatCore
@testable import ChatWire
import Foundation

/// Fuzz target: the codec's two parsers on every input.
///
/// The fast path (`P2PFrameCodec.decodeFast`) either steps aside or gives
/// an answer, a frame or a `FrameError`; whenever it answers, the JSONDecoder
/// path (`decodeWithJSONDecoder`, which also refuses repeated keys) must give
/// the same answer: both accept the same frame, or both refuse with the same
/// error. And `decode` gives the fast answer when there is one, else the
/// slow one. Built with ChatWire's `-enable-testing`, for the two internals.
@_cdecl("LLVMFuzzerTestOneInput")
public func payloadDifferentialFuzzTarget(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let slow = Result { () throws(FrameError) in try P2PFrameCodec.decodeWithJSONDecoder(bytes, using: sharedDecoder) }
    let fast: Result<P2PPayload, FrameError>?
    do {
        fast = try P2PFrameCodec.decodeFast(bytes).map { .success($0) }
    } catch {
        fast = .failure(error)
    }
    if let fast {
        fuzzCheck(fast == slow, "fast path says \(fast), JSONDecoder path says \(slow)")
    }
    let decoded = Result { () throws(FrameError) in try P2PFrameCodec.decode(bytes, using: sharedDecoder) }
    fuzzCheck(decoded == (fast ?? slow), "decode says \(decoded)")
    return 0
}

/// One decoder for every run.
private let sharedDecoder = JSONDecoder()
