import ChatCore
@testable import ChatCrypto

/// Fuzz target: `RecordFrameDecoder` and `RecordCipher.open`, the path
/// every byte of an established link takes.
///
/// Input: byte 0 picks the frame limit (16 + byte * 256 up to 65535, or 65535 for 0),
/// bytes 1...8 seed the chunking; the rest is the stream. It is fed whole
/// and in random chunks; both must agree with a plain reference split
/// (2-byte big-endian length; a length under 16 or over the limit ends the
/// stream). Every frame is then opened by a fixed-key cipher: arbitrary
/// bytes must fail authentication (and poison it), and the fixed cipher's
/// own sealed records, fed afterwards to a fresh one, must open.
@_cdecl("LLVMFuzzerTestOneInput")
public func recordDecodingFuzzTarget(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count >= 9 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    let limit = input[0] == 0 ? RecordCipher.maxRecordLength : min(16 + Int(input[0]) * 256, RecordCipher.maxRecordLength)
    var choices = FuzzInput(seed: input[1..<9])
    let stream = Array(input[9...])
    let expected = referenceSplit(stream, limit: limit)

    var whole = RecordFrameDecoder(maxFrameLength: limit)
    var wholeFrames: [[UInt8]] = []
    var wholeFailed = false
    do {
        try whole.append(stream)
        while let frame = try whole.decode() { wholeFrames.append(frame) }
    } catch {
        wholeFailed = true
    }
    fuzzCheck(wholeFailed == expected.malformed, "whole: failed \(wholeFailed), reference \(expected.malformed)")
    if !wholeFailed {
        fuzzCheck(wholeFrames == expected.frames, "whole stream split differently")
        fuzzCheck(whole.bufferedByteCount == expected.rest, "whole: \(whole.bufferedByteCount) held, expected \(expected.rest)")
    }

    var chunked = RecordFrameDecoder(maxFrameLength: limit)
    var frames: [[UInt8]] = []
    var failed = false
    var offset = 0
    while offset < stream.count, !failed {
        let size = choices.next(in: 0...min(stream.count - offset, choices.next(in: 0...1) == 0 ? 8 : 3000))
        do {
            try chunked.append(stream[offset..<offset + size])
            offset += size
            if choices.next(in: 0...3) != 0 {
                while let frame = try chunked.decode() { frames.append(frame) }
            }
        } catch {
            failed = true
        }
    }
    if !failed {
        do { while let frame = try chunked.decode() { frames.append(frame) } } catch { failed = true }
    }
    fuzzCheck(failed == expected.malformed, "chunked: failed \(failed), reference \(expected.malformed)")
    fuzzCheck(frames.count <= expected.frames.count && Array(expected.frames.prefix(frames.count)) == frames,
              "chunked feeding split differently")
    if !failed { fuzzCheck(frames == expected.frames, "chunked feeding lost frames") }

    // Arbitrary frames never open; the first failure poisons the cipher.
    var receiver = RecordCipher(key: [UInt8](repeating: 7, count: 32))
    for (index, frame) in expected.frames.prefix(4).enumerated() {
        do {
            _ = try receiver.open(frame)
            fatalError("fuzz invariant broken: an arbitrary record opened")
        } catch {
            fuzzCheck(index == 0 ? error == .authenticationFailed : error == .cipherFailed, "record \(index): \(error)")
        }
    }
    // The frames as plaintexts: sealed, framed, decoded and opened again.
    var sender = RecordCipher(key: [UInt8](repeating: 7, count: 32))
    var fresh = RecordCipher(key: [UInt8](repeating: 7, count: 32))
    var decoder = RecordFrameDecoder()
    for frame in expected.frames.prefix(4) {
        guard let record = try? sender.seal(frame), let framed = try? RecordFrameDecoder.frame(record) else {
            fatalError("fuzz invariant broken: sealing a frame of \(frame.count) bytes failed")
        }
        do {
            try decoder.append(framed)
            let decoded = try decoder.decode()
            fuzzCheck(decoded == record, "a framed record did not come back")
            let opened = try fresh.open(record)
            fuzzCheck(opened == frame, "a sealed record did not open to its plaintext")
        } catch {
            fatalError("fuzz invariant broken: own record refused: \(error)")
        }
    }
    return 0
}

/// The obvious split: frames while whole; malformed at the first header
/// out of bounds (even before its body arrives); `rest` is what is held.
private func referenceSplit(_ stream: [UInt8], limit: Int) -> (frames: [[UInt8]], malformed: Bool, rest: Int) {
    var frames: [[UInt8]] = []
    var index = 0
    while stream.count - index >= 2 {
        let length = Int(stream[index]) << 8 | Int(stream[index + 1])
        if length < 16 || length > limit { return (frames, true, 0) }
        guard stream.count - index - 2 >= length else { break }
        frames.append(Array(stream[(index + 2)..<(index + 2 + length)]))
        index += 2 + length
    }
    return (frames, false, stream.count - index)
}
