import ChatScreen
import Testing

/// The lone-Escape rule on explicit time: an ESC is the Escape key once
/// input paused for `KeyInput.escapeWait`, never earlier, and the start of
/// a sequence whose rest comes within the wait is that sequence.
@Suite struct KeyInputTests {
    let wait = KeyInput.escapeWait

    @Test func aLoneEscapeIsEscapeOnceInputPausedForTheWait() {
        var input = KeyInput()
        #expect(input.read([0x1B], at: .seconds(10)) == [])
        #expect(input.pauseDue == .seconds(10) + wait)
        #expect(input.paused(at: .seconds(10) + wait - .milliseconds(1)) == [], "too early")
        #expect(input.paused(at: .seconds(10) + wait) == [.escape])
        #expect(input.pauseDue == nil)
        #expect(input.paused(at: .seconds(11)) == [], "settled once")
    }

    @Test func theRestOfASequenceWithinTheWaitMakesItOneKey() {
        var input = KeyInput()
        #expect(input.read([0x1B], at: .zero) == [])
        #expect(input.read(Array("[A".utf8), at: wait - .milliseconds(1)) == [.up])
        #expect(input.pauseDue == nil, "nothing held")
        #expect(input.paused(at: wait) == [], "a stale wake-up from the first read")
    }

    @Test func eachReadMovesThePauseOn() {
        var input = KeyInput()
        _ = input.read([0x1B], at: .zero)
        #expect(input.read(Array("[".utf8), at: .milliseconds(30)) == [])
        #expect(input.paused(at: wait) == [], "input came 30 ms in: not a pause yet")
        // The unfinished sequence is dropped by the pause; what follows reads as typed.
        #expect(input.paused(at: .milliseconds(30) + wait) == [])
        #expect(input.read(Array("x".utf8), at: .seconds(1)) == [.text("x")])
    }

    @Test func plainTextAsksForNoPauseAndAPasteWaitsForItsEnd() {
        var input = KeyInput()
        #expect(input.read(Array("hi".utf8), at: .zero) == [.text("hi")])
        #expect(input.pauseDue == nil)
        #expect(input.read(Array("\u{1B}[200~one".utf8), at: .seconds(1)) == [])
        #expect(input.pauseDue == nil, "a stalled paste is no Escape")
        #expect(input.read(Array(" two\u{1B}[201~".utf8), at: .seconds(5)) == [.paste("one two")])
    }
}
