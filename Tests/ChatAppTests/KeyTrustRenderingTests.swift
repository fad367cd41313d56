import ChatCore
import ChatNode
import Foundation
import ChatApp
import Testing

/// Key continuity in the console and in `--json`: the key-change notice,
/// `/verify`'s safety number and confirmation, trust in `/whois`, the ✓,
/// the JSON fields docs/USAGE.md lists, and the commands that ask for them.
@Suite struct KeyTrustRenderingTests {
    let plain = ConsoleRenderer(useColor: false, timeZone: TimeZone(identifier: "UTC")!)
    static let alice = NodeNumber(rawValue: 4_393_289_295_727_693)!
    /// 2026-03-05 10:00 UTC.
    static let march: Int64 = 1_772_704_800_000
    static let peer = PeerInfo(number: alice, nickname: "alice", instanceId: "i", address: "10.0.0.2:7000",
                               identityKey: "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=", fingerprint: "7b1e 0042 aaaa bbbb cccc dddd eeee ffff")

    static func change(verified: Bool = false, nickname: String = "alice") -> KeyChange {
        var peer = Self.peer
        peer.nickname = nickname
        return KeyChange(peer: peer, fingerprint: "7b1e 0042 aaaa bbbb cccc dddd eeee ffff",
                         previousFingerprint: "3f2a 9c01 77de 0b41 c2e8 5a90 1d6f e403", previousFirstSeen: march, previousVerified: verified)
    }

    @Test func theKeyChangeNoticeSaysWhatHappenedAndWhatToDo() {
        #expect(plain.keyChangedText(Self.change(), name: "alice") ==
            "alice's key is not the one you have seen since 5 March 2026 (before: 3f2a 9c01…, now: 7b1e 0042…). If you did not expect this, it may be someone else: /verify alice")
        #expect(plain.keyChanged(Self.change(), name: "alice").hasPrefix("⚠ @alice alice's key is not"))
        let verified = plain.keyChangedText(Self.change(verified: true), name: "alice")
        #expect(verified.contains("not the one you verified") && verified.contains("DMs to alice are held") && verified.contains("/verify alice ok"))
        // A hostile nickname is sanitized wherever it appears.
        let evil = "al\u{1B}[2Jice\u{07}"
        let line = plain.keyChanged(Self.change(nickname: evil), name: evil)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test func theNoticeNamesBothTagsAndALookAlike() {
        var change = Self.change()
        change.previousNumber = NodeNumber(rawValue: 0x1234)
        #expect(plain.keyChangedText(change, name: "alice").contains("(before: #1234, key 3f2a 9c01…; now: #\(Self.alice.shortTag), key 7b1e 0042…)"))
        var lookAlike = Self.change(nickname: "\u{430}lice")  // Cyrillic а
        lookAlike.previousNickname = "alice"
        #expect(plain.keyChangedText(lookAlike, name: "\u{430}lice").hasPrefix("\u{430}lice looks like alice, and its key is not the one you have seen since 5 March 2026"))
        lookAlike.previousNickname = "\u{430}lice"
        #expect(plain.keyChangedText(lookAlike, name: "\u{430}lice").hasPrefix("\u{430}lice's key is not"), "the same spelling is not a look-alike")
    }

    @Test func verifyShowsTheNumberInGroupsAndConfirmationMarksIt() {
        let number = "53057 04234 45518 24814 77828 96268 91953 59631 36011 12859 26786 23464"
        let asked = KeyVerification(number: Self.alice, nickname: "alice", key: Self.peer.identityKey!, fingerprint: Self.peer.fingerprint!,
                                    safetyNumber: number, trust: PeerTrust(state: .new, firstSeen: Self.march), confirmed: false)
        let lines = plain.verification(asked, name: "alice")
        #expect(lines.contains("    53057 04234 45518 24814 77828 96268"))
        #expect(lines.contains("    91953 59631 36011 12859 26786 23464"))
        #expect(lines.contains("  trust: new (not verified), first seen 5 March 2026"))
        #expect(lines.last == "  compare it with alice in person or on a call; if it matches: /verify alice ok")
        var confirmed = asked
        confirmed.confirmed = true
        confirmed.released = 1
        confirmed.trust = PeerTrust(state: .verified, firstSeen: Self.march, verifiedAt: Self.march)
        #expect(plain.verification(confirmed, name: "alice").contains("  alice is verified ✓; 1 held DM sent"))
    }

    @Test func whoisAndPeersCarryTrustAndTheMark() {
        let verified = PeerTrust(state: .verified, firstSeen: Self.march, verifiedAt: Self.march)
        let whois = plain.whois(Whois(number: Self.alice, displayName: "alice", linked: Self.peer, trust: verified))
        #expect(whois[0].hasPrefix("  alice ✓  node"))
        #expect(whois.contains("  trust: verified ✓ on 5 March 2026, first seen 5 March 2026"))
        let changed = PeerTrust(state: .changed, firstSeen: Self.march, previousFirstSeen: Self.march - 86_400_000, previousVerified: true)
        #expect(plain.whois(Whois(number: Self.alice, displayName: "alice", linked: Self.peer, trust: changed))
            .contains("  trust: CHANGED: its nickname belongs to another key seen since 4 March 2026, which you verified, first seen 5 March 2026"))
        let listed = plain.peers([PeerListing(info: Self.peer, displayName: "alice", trust: changed)])
        #expect(listed == ["  alice  10.0.0.2:7000  ⚠ key changed: /verify alice"])
        #expect(plain.peers([PeerListing(info: Self.peer, displayName: "alice", trust: verified)]) == ["  alice ✓  10.0.0.2:7000"])
    }

    @Test func jsonCarriesTheDocumentedFields() throws {
        let event = JSONEventEncoder.keyChanged(Self.change(verified: true), name: "alice#7b1e",
                                                trust: PeerTrust(state: .changed, firstSeen: Self.march + 1))
        #expect(event["event"] as? String == "keyChanged")
        #expect(event["nickname"] as? String == "alice")
        #expect(event["fingerprint"] as? String == "7b1e 0042 aaaa bbbb cccc dddd eeee ffff")
        #expect(event["previousFingerprint"] as? String == "3f2a 9c01 77de 0b41 c2e8 5a90 1d6f e403")
        #expect(event["previousFirstSeen"] as? Int64 == Self.march)
        #expect(event["previousVerified"] as? Bool == true && event["dmsHeld"] as? Bool == true)
        let peer = try #require(event["peer"] as? [String: Any])
        #expect(peer["trust"] as? String == "changed" && peer["verified"] as? Bool == false && peer["name"] as? String == "alice#7b1e")
        let line = JSONEventEncoder.line(event)
        #expect(line.contains(#""event":"keyChanged""#) && line.contains(#""trust":"changed""#))

        let message = Message(id: MessageID(millis: Self.march, random: (1, 2)), room: .publicRoom, senderNumber: Self.alice,
                              senderNickname: "alice", content: "hi", timestamp: Self.march)
        #expect(JSONEventEncoder.message(message, localNumber: NodeNumber(rawValue: 1)!, name: "alice", verified: true)["verified"] as? Bool == true)
        #expect(JSONEventEncoder.message(message, localNumber: NodeNumber(rawValue: 1)!, name: "alice")["verified"] == nil)

        let reply = JSONEventEncoder.verification(KeyVerification(
            number: Self.alice, nickname: "alice", key: Self.peer.identityKey!, fingerprint: Self.peer.fingerprint!,
            safetyNumber: "53057 04234", trust: PeerTrust(state: .verified, firstSeen: 5, verifiedAt: 6), confirmed: true, released: 1), name: "alice")
        #expect(reply["safetyNumber"] as? String == "53057 04234" && reply["confirmed"] as? Bool == true && reply["released"] as? Int == 1)
        #expect(reply["trust"] as? String == "verified" && reply["verified"] as? Bool == true && reply["verifiedAt"] as? Int64 == 6)
    }

    @Test func verifyAndWhoisCommandsParse() throws {
        #expect(try ConsoleCommandParser.parse("/verify alice") == .verify("alice", confirm: false))
        #expect(try ConsoleCommandParser.parse("/verify alice#3f2a OK") == .verify("alice#3f2a", confirm: true))
        #expect(throws: UsageError.self) { try ConsoleCommandParser.parse("/verify alice bob") }
        #expect(throws: UsageError.self) { try ConsoleCommandParser.parse("/verify") }
        #expect(try JSONCommandParser.parse(#"{"cmd":"verify","name":"alice"}"#).command == .verify("alice", confirm: false))
        #expect(try JSONCommandParser.parse(#"{"cmd":"verify","name":"alice","confirm":true}"#).command == .verify("alice", confirm: true))
        #expect(try JSONCommandParser.parse(#"{"cmd":"verify","peer":4393289295727693,"accept":true}"#).command
                == .verify("4393289295727693", confirm: true))
        #expect(try JSONCommandParser.parse(#"{"cmd":"whois","name":"alice"}"#).command == .whois("alice"))
        #expect(try JSONCommandParser.parse(#"{"cmd":"whois","peer":"alice"}"#).command == .whois("alice"))
        #expect(try ConsoleCommandParser.parse("/discard alice") == .discard("alice"))
        #expect(throws: UsageError.self) { try ConsoleCommandParser.parse("/discard") }
        #expect(try JSONCommandParser.parse(#"{"cmd":"discard","name":"alice"}"#).command == .discard("alice"))
    }

    @Test func heldAndDiscardedDMsAreSaidInTheConsole() {
        #expect(plain.delivery(.held, peer: "alice") == nil, "the command's error says why it is held")
        #expect(plain.delivery(.discarded, peer: "alice", preview: "hi") == "   ✗ discarded, never sent to alice: \"hi\"")
        #expect(plain.plainDiscarded(2, name: "alice") == "2 held DMs to alice discarded: never sent, kept in the conversation")
        #expect(plain.plainDiscarded(0, name: "alice") == "no DMs are held for alice")
        // A page shows an own DM's state after it, held included.
        let me = NodeNumber(rawValue: 7)!
        let message = Message(id: MessageID(millis: Self.march, random: (1, 2)), room: .direct(Self.alice), senderNumber: me, senderNickname: "bob",
                              content: "the secret", timestamp: Self.march)
        let page = HistoryPage(room: .direct(Self.alice), messages: [message], hasMoreBefore: false, hasMoreAfter: false)
        let day = DaySection(year: 2026, month: 3, day: 5, start: Date(timeIntervalSince1970: 1_772_668_800), messageCount: 1,
                             first: HistoryCursor(message), last: HistoryCursor(message))
        let lines = plain.history(page, sections: [day], locale: Locale(identifier: "en_US"), conversation: "alice",
                                  states: [message.id: .held]) { $0.senderNickname }
        #expect(lines.contains { $0.hasSuffix("bob: the secret  · held") }, "\(lines)")
    }
}
