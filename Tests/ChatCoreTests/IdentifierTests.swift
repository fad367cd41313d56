import ChatCore
import Foundation
import Testing
import TestSupport

@Suite struct MessageIDTests {
    static func version(_ id: MessageID) -> UInt8 { id.uuid.uuid.6 >> 4 }
    static func variant(_ id: MessageID) -> UInt8 { id.uuid.uuid.8 >> 6 }

    @Test(arguments: [
        (UInt64(0), UInt64(0)), (.max, .max), (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210),
    ])
    func version7LayoutWhateverTheRandomBits(high: UInt64, low: UInt64) {
        let id = MessageID(millis: Fixtures.t0, random: (high, low))
        #expect(Self.version(id) == 7)
        #expect(Self.variant(id) == 0b10)
        #expect(id.millis == Fixtures.t0)
        // The first 48 bits are the big-endian millisecond time.
        let bytes = id.uuid.uuid
        let timeBits = [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(timeBits == UInt64(Fixtures.t0))
        #expect(id.halves.high & 0x0FFF == high & 0x0FFF)
        #expect(id.halves.low & 0x3FFF_FFFF_FFFF_FFFF == low & 0x3FFF_FFFF_FFFF_FFFF)
    }

    @Test func negativeMillisClampToZero() {
        #expect(MessageID(millis: -5, random: (0, 0)).millis == 0)
    }

    @Test func stringRoundTrip() throws {
        let id = MessageID(millis: Fixtures.t0, random: (0xABC, 0x1234_5678_9ABC_DEF0))
        let string = id.description
        #expect(string.count == 36)
        #expect(string == string.lowercased())
        #expect(string.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(string.dropFirst(14).first == "7")
        #expect(MessageID(string) == id)
        #expect(MessageID(string.uppercased()) == id)
        // Codable: a bare JSON string.
        let json = try JSONEncoder().encode(id)
        #expect(String(decoding: json, as: UTF8.self) == "\"\(string)\"")
        #expect(try JSONDecoder().decode(MessageID.self, from: json) == id)
    }

    @Test(arguments: [
        "", "not-a-uuid", "0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1", "0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1bc",
        "0193a1b27c3d7e4f8a5b6c7d8e9f0a1b", "0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1g", " 0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b",
    ])
    func badStringsRefused(string: String) {
        #expect(MessageID(string) == nil)
    }

    @Test func orderIsTimeThenRandomBits() {
        let a = MessageID(millis: Fixtures.t0, random: (0xFFF, .max))
        let b = MessageID(millis: Fixtures.t0 + 1, random: (0, 0))
        let c = MessageID(millis: Fixtures.t0 + 1, random: (0, 1))
        let d = MessageID(millis: Fixtures.t0 + 1, random: (1, 0))
        #expect(a < b && b < c && c < d)
        #expect([d, b, a, c].sorted() == [a, b, c, d])
        #expect(!(a < a))
        // Byte order, not UUID string order of a different layout: compare strings too.
        #expect([d, b, a, c].map(\.description).sorted() == [a, b, c, d].map(\.description))
    }

    @Test func displayOrderIsTimestampThenId() {
        let early = Fixtures.message(9, at: Fixtures.t0)
        let late = Fixtures.message(1, at: Fixtures.t0 + 1)
        let tie = Fixtures.message(10, at: Fixtures.t0)
        #expect(Message.displayOrder(early, late))
        #expect(!Message.displayOrder(late, early))
        #expect(Message.displayOrder(early, tie))
        #expect(!Message.displayOrder(early, early))
    }
}

@Suite struct MessageIDGeneratorTests {
    @Test func strictlyIncreasingWithinOneMillisecond() {
        var generator = MessageIDGenerator()
        var rng = SeededRandom(seed: 1)
        var previous = generator.next(millis: Fixtures.t0, using: &rng)
        for _ in 0..<10_000 {
            let id = generator.next(millis: Fixtures.t0, using: &rng)
            #expect(id > previous)
            #expect(MessageIDTests.version(id) == 7 && MessageIDTests.variant(id) == 0b10)
            previous = id
        }
    }

    @Test func sameMillisecondWithDecreasingRandomBitsStillIncreases() {
        var generator = MessageIDGenerator()
        var rng = ScriptedRNG([0xFFF, 500, 0, 0])  // the second id's random bits are smaller
        let first = generator.next(millis: Fixtures.t0, using: &rng)
        let second = generator.next(millis: Fixtures.t0, using: &rng)
        #expect(second > first)
        #expect(second.millis == Fixtures.t0)
        #expect(second.halves.high == first.halves.high)
        #expect(second.halves.low == first.halves.low + 1, "successor of the last id")
    }

    @Test func clockGoingBackwardsStillIncreases() {
        var generator = MessageIDGenerator()
        var rng = SeededRandom(seed: 2)
        let first = generator.next(millis: Fixtures.t0, using: &rng)
        let second = generator.next(millis: Fixtures.t0 - 60_000, using: &rng)
        let third = generator.next(millis: Fixtures.t0 - 120_000, using: &rng)
        #expect(first < second && second < third)
        #expect(second.millis == Fixtures.t0 && third.millis == Fixtures.t0, "time never goes back in ids")
        // Once the clock passes the last id's time again, ids use it.
        let fourth = generator.next(millis: Fixtures.t0 + 5, using: &rng)
        #expect(fourth > third && fourth.millis == Fixtures.t0 + 5)
    }

    @Test func carryFromLowBitsIntoRandA() {
        var generator = MessageIDGenerator()
        var rng = ScriptedRNG([0x123, .max])  // rand_a 0x123, rand_b all ones, every time
        let first = generator.next(millis: Fixtures.t0, using: &rng)
        #expect(first.halves.low == 0xBFFF_FFFF_FFFF_FFFF, "variant 10, then 62 ones")
        let second = generator.next(millis: Fixtures.t0, using: &rng)
        #expect(second > first)
        #expect(second.halves.high == first.halves.high + 1)
        #expect(second.halves.high & 0x0FFF == 0x124)
        #expect(second.halves.low == 0x8000_0000_0000_0000)
        #expect(second.millis == Fixtures.t0)
        #expect(MessageIDTests.version(second) == 7 && MessageIDTests.variant(second) == 0b10)
    }

    @Test func carryIntoTheTimeWhenAllRandomBitsAreOnes() {
        var generator = MessageIDGenerator()
        var rng = ScriptedRNG([.max])  // every random bit set
        let first = generator.next(millis: Fixtures.t0, using: &rng)
        #expect(first.halves.high & 0x0FFF == 0x0FFF && first.halves.low == 0xBFFF_FFFF_FFFF_FFFF)
        let second = generator.next(millis: Fixtures.t0, using: &rng)
        #expect(second > first)
        #expect(second.millis == Fixtures.t0 + 1)
        #expect(second.halves.high & 0xFFFF == 0x7000, "version 7, rand_a restarts at zero")
        #expect(second.halves.low == 0x8000_0000_0000_0000)
        #expect(MessageIDTests.version(second) == 7 && MessageIDTests.variant(second) == 0b10)
        // And it keeps going up from there.
        let third = generator.next(millis: Fixtures.t0, using: &rng)
        #expect(third > second)
        #expect(third.millis == Fixtures.t0 + 1)
    }

    @Test func systemRandomVariantIsMonotonicToo() {
        var generator = MessageIDGenerator()
        let ids = (0..<1_000).map { n in generator.next(millis: Fixtures.t0 + Int64(n % 3)) }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
    }
}

@Suite struct NodeNumberTests {
    @Test(arguments: [0, 1 << 53, (1 << 53) + 1, .max] as [UInt64])
    func outOfRangeRefused(raw: UInt64) {
        #expect(NodeNumber(rawValue: raw) == nil)
    }

    @Test(arguments: [1, 2, 4711, (1 << 53) - 1] as [UInt64])
    func inRangeAccepted(raw: UInt64) throws {
        let number = try #require(NodeNumber(rawValue: raw))
        #expect(number.rawValue == raw)
        #expect(number.description == String(raw))
        let json = try JSONEncoder().encode(number)
        #expect(String(decoding: json, as: UTF8.self) == String(raw))
        #expect(try JSONDecoder().decode(NodeNumber.self, from: json) == number)
    }

    @Test(arguments: [
        (1, "0001"), (0x3F2A, "3f2a"), (0xABCDEF, "cdef"), (0x10000, "0000"), (0xF, "000f"), ((1 << 53) - 1, "ffff"),
    ] as [(UInt64, String)])
    func shortTagIsFourHexDigits(raw: UInt64, tag: String) throws {
        #expect(try #require(NodeNumber(rawValue: raw)).shortTag == tag)
    }

    @Test func randomStaysInRange() {
        var rng = SeededRandom(seed: 3)
        for _ in 0..<1_000 {
            #expect(NodeNumber.validRange.contains(NodeNumber.random(using: &rng).rawValue))
        }
    }

    @Test func ordersByValue() {
        #expect(Fixtures.node(2) < Fixtures.node(10))
        #expect(!(Fixtures.node(10) < Fixtures.node(2)))
    }
}

@Suite struct RoomIDTests {
    @Test(arguments: [
        (RoomID.publicRoom, "public"), (.direct(Fixtures.node(1)), "dm:1"),
        (.direct(Fixtures.node(4711)), "dm:4711"), (.direct(Fixtures.node((1 << 53) - 1)), "dm:9007199254740991"),
    ])
    func stringRoundTrip(room: RoomID, string: String) throws {
        #expect(room.description == string)
        #expect(RoomID(string) == room)
        let json = try JSONEncoder().encode(room)
        #expect(String(decoding: json, as: UTF8.self) == "\"\(string)\"")
        #expect(try JSONDecoder().decode(RoomID.self, from: json) == room)
    }

    @Test(arguments: [
        "", "Public", "public ", " public", "dm:", "dm:0", "dm:-1", "dm:abc", "dm:9007199254740992",
        "dm:18446744073709551616", "dm: 5", "dm:5 ", "dm:+5", "dm:05", "DM:5", "dm5", "dm:5:6",
    ])
    func badStringsRefused(string: String) {
        #expect(RoomID(string) == nil)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RoomID.self, from: Data("\"\(string)\"".utf8))
        }
    }

    @Test func peer() {
        #expect(RoomID.publicRoom.peer == nil)
        #expect(RoomID.direct(Fixtures.node(7)).peer == Fixtures.node(7))
    }
}
