import ChatCore
import Foundation
import Testing

@Suite struct ChatFilterTests {
    private static func peer(_ n: UInt64, stage: String?) -> PeerInfo {
        PeerInfo(number: NodeNumber(rawValue: n)!, nickname: "p\(n)", stage: stage, instanceId: "i\(n)", address: "127.0.0.1:\(9000 + n)")
    }

    private static func message(_ n: UInt64, stage: String?) -> Message {
        Message(
            id: MessageID(millis: 1_732_147_200_000, random: (n, n)), room: .publicRoom,
            senderNumber: NodeNumber(rawValue: n)!, senderNickname: "p\(n)", senderStage: stage,
            content: "hi", timestamp: 1_732_147_200_000)
    }

    @Test func allMatchesEverything() {
        for stage in [nil, "", "ios", "Android"] {
            #expect(ChatFilter.all.matches(stage: stage))
        }
    }

    @Test func noStageMatchesOnlyMissingOrBlankStages() {
        #expect(ChatFilter.noStage.matches(stage: nil))
        #expect(ChatFilter.noStage.matches(stage: ""))
        #expect(ChatFilter.noStage.matches(stage: "  "))
        #expect(!ChatFilter.noStage.matches(stage: "ios"))
    }

    @Test func stageMatchesOneStageIgnoringCaseAndSpaces() {
        let ios = ChatFilter.stage("iOS")
        #expect(ios.matches(stage: "ios"))
        #expect(ios.matches(stage: " IOS "))
        #expect(!ios.matches(stage: "android"))
        #expect(!ios.matches(stage: "ios2"))
        #expect(!ios.matches(stage: nil))
        #expect(ChatFilter.stage("웹").matches(stage: "웹"))
        #expect(!ChatFilter.stage("  ").matches(stage: nil), "a blank stage filter matches nothing")
    }

    @Test func appliesToPeersKeepingOrder() {
        let peers = [Self.peer(1, stage: "ios"), Self.peer(2, stage: nil), Self.peer(3, stage: "web"), Self.peer(4, stage: "IOS")]
        #expect(ChatFilter.all.apply(to: peers) == peers)
        #expect(ChatFilter.noStage.apply(to: peers).map(\.number.rawValue) == [2])
        #expect(ChatFilter.stage("ios").apply(to: peers).map(\.number.rawValue) == [1, 4])
        #expect(ChatFilter.stage("android").apply(to: peers).isEmpty)
    }

    @Test func appliesToMessagesByTheirSendersStage() {
        let messages = [Self.message(1, stage: "web"), Self.message(2, stage: nil), Self.message(3, stage: "web")]
        #expect(ChatFilter.all.apply(to: messages) == messages)
        #expect(ChatFilter.noStage.apply(to: messages).map(\.senderNumber.rawValue) == [2])
        #expect(ChatFilter.stage("web").apply(to: messages).map(\.senderNumber.rawValue) == [1, 3])
    }

    @Test func textFormRoundTrips() throws {
        #expect(ChatFilter("all") == .all)
        #expect(ChatFilter(" NONE ") == .noStage)
        #expect(ChatFilter("ios") == .stage("ios"))
        #expect(ChatFilter("stage:all") == .stage("all"))
        #expect(ChatFilter("") == nil)
        #expect(ChatFilter("stage:") == nil)
        for filter in [ChatFilter.all, .noStage, .stage("ios"), .stage("all"), .stage("None"), .stage("stage:x")] {
            #expect(ChatFilter(filter.description) == filter)
            let json = try JSONEncoder().encode(filter)
            #expect(try JSONDecoder().decode(ChatFilter.self, from: json) == filter)
        }
        #expect(String(decoding: try JSONEncoder().encode(ChatFilter.noStage), as: UTF8.self) == "\"none\"")
    }
}
