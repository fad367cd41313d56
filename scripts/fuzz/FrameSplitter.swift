import ChatCore
import ChatWire

/// Fuzz target: `LineFrameDecoder`, the byte-stream splitter in front of
/// every peer link.
///
/// Input: byte 0 picks the line limit (1...255, or the real 64 KiB), bytes
/// 1...8 seed the chunking; the rest is the stream. The stream is fed once
/// whole and once in random chunks with `nextLine()` called at random
/// points; both must agree with a plain reference split (lines over the
/// limit end the stream, "\r\n" counts as "\n", empty lines are skipped),
/// and no line may exceed the limit or contain "\n".
@_cdecl("LLVMFuzzerTestOneInput")
public func frameSplitterFuzzTarget(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count >= 9 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    let limit = input[0] == 0 ? P2PFrameCodec.maxLineLength : Int(input[0])
    var choices = FuzzInput(seed: input[1..<9])
    let stream = input[9...]

    let expected = referenceSplit(stream, limit: limit)

    // Whole: either every line, or an error and nothing.
    var whole = LineFrameDecoder(maxLineLength: limit)
    do {
        try whole.append(stream)
        var delivered = 0
        while let line = whole.nextLine() {
            fuzzCheck(delivered < expected.lines.count && line.elementsEqual(stream[expected.lines[delivered]]),
                      "whole stream split differently at line \(delivered)")
            delivered += 1
        }
        fuzzCheck(!expected.tooLong, "whole stream accepted although a line is over \(limit)")
        fuzzCheck(delivered == expected.lines.count, "whole stream lost lines")
        fuzzCheck(whole.bufferedByteCount == expected.rest, "whole: \(whole.bufferedByteCount) bytes held, expected \(expected.rest)")
    } catch {
        fuzzCheck(expected.tooLong, "whole stream refused: \(error)")
        fuzzCheck(whole.bufferedByteCount == 0 && whole.nextLine() == nil, "a refused append left bytes behind")
    }

    // Chunked: the same lines, up to the error if there is one.
    var chunked = LineFrameDecoder(maxLineLength: limit)
    var delivered = 0
    var refused = false
    var offset = stream.startIndex
    func take(_ line: ArraySlice<UInt8>) {
        fuzzCheck(delivered < expected.lines.count && line.elementsEqual(stream[expected.lines[delivered]]),
                  "chunked feeding split differently at line \(delivered)")
        delivered += 1
    }
    while offset < stream.endIndex {
        let size = choices.next(in: 0...min(stream.endIndex - offset, choices.next(in: 0...1) == 0 ? 8 : 300))
        do {
            try chunked.append(stream[offset..<offset + size])
        } catch {
            refused = true
            break
        }
        offset += size
        if choices.next(in: 0...3) != 0 {
            while let line = chunked.nextLine() { take(line) }
        }
    }
    if !refused {
        while let line = chunked.nextLine() { take(line) }
    }
    fuzzCheck(refused == expected.tooLong, "chunked feeding refused: \(refused), reference: \(expected.tooLong)")
    if !refused {
        fuzzCheck(delivered == expected.lines.count, "chunked feeding lost lines")
        fuzzCheck(chunked.bufferedByteCount == expected.rest, "chunked: \(chunked.bufferedByteCount) bytes held, expected \(expected.rest)")
    }
    return 0
}

/// The obvious split: lines (without "\n" and one "\r" before it), empty
/// ones skipped; `tooLong` if any line, or the unterminated rest, is over
/// `limit` (a trailing "\r" that may still start "\r\n" does not count
/// yet), and then `lines` are those before it; `rest` is the unterminated
/// tail's length.
private func referenceSplit(_ stream: ArraySlice<UInt8>, limit: Int) -> (lines: [Range<Int>], tooLong: Bool, rest: Int) {
    var lines: [Range<Int>] = []
    var start = stream.startIndex
    for index in stream.indices where stream[index] == 0x0A {
        var end = index
        if end > start, stream[end - 1] == 0x0D { end -= 1 }
        if end - start > limit { return (lines, true, 0) }
        if end > start { lines.append(start..<end) }
        start = index + 1
    }
    let rest = stream.endIndex - start
    let pending = rest > 0 && stream[stream.endIndex - 1] == 0x0D ? rest - 1 : rest
    return pending > limit ? (lines, true, 0) : (lines, false, rest)
}
