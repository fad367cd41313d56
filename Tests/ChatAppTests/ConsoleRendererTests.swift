import ChatCore
import Foundation
import ChatApp
import Testing

@Suite struct ConsoleRendererTests {
    let plain = ConsoleRenderer(useColor: false, timeZone: TimeZone(identifier: "UTC")!)

    func message(nickname: String = "bob", content: String, room: RoomID = .publicRoom) -> Message {
        Message(id: MessageID(millis: 1_732_147_200_000, random: (1, 2)), room: room, senderNumber: NodeNumber(rawValue: 2)!,
                senderNickname: nickname, content: content, timestamp: 1_732_147_200_000 + 14 * 3_600_000 + 5 * 60_000)
    }

    @Test func messageLineShowsTimeRoomSenderText() {
        #expect(plain.message(message(content: "hi"), name: "bob", conversation: nil) == "14:05 #public bob: hi")
        #expect(plain.message(message(content: "psst", room: .direct(NodeNumber(rawValue: 2)!)), name: "bob", conversation: "bob")
                == "14:05 @bob bob: psst")
    }

    @Test func peerTextNeverReachesTheTerminalRaw() {
        let evil = "\u{1B}]0;pwned\u{07}\u{1B}[2Jbob\u{1B}[31m"
        let line = plain.message(message(nickname: evil, content: "a\u{1B}[1Ab\rc\u{9B}2J"), name: evil, conversation: nil)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(line == "14:05 #public bob: ab c")
        #expect(!plain.dmRequest(from: evil, text: "\u{1B}[5m").contains("\u{1B}"))
        #expect(!plain.peerJoined(evil, address: "x\u{1B}[0m").contains("\u{1B}"))
    }

    @Test func colorFollowsNoColorAndTerminal() {
        #expect(ConsoleRenderer.wantsColor(environment: [:], isTerminal: true))
        #expect(!ConsoleRenderer.wantsColor(environment: ["NO_COLOR": "1"], isTerminal: true))
        #expect(!ConsoleRenderer.wantsColor(environment: [:], isTerminal: false))
        #expect(ConsoleRenderer.wantsColor(environment: ["NO_COLOR": ""], isTerminal: true))
        let colored = ConsoleRenderer(useColor: true, timeZone: TimeZone(identifier: "UTC")!)
        #expect(colored.message(message(content: "hi"), name: "bob", conversation: nil).contains("\u{1B}[1mbob"))
    }
}
