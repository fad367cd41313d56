import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// The answers to a newcomer (issue 29): at once on a small LAN; on a large
/// one after a random 20-120 ms, not at all once the newcomer is linked or
/// heard us, and as a dial once enough others answered.
@Suite struct NewcomerAnswersTests {
    private let newcomer = TestNetwork.key(29_101).nodeNumber
    private let second = TestNetwork.key(29_102).nodeNumber
    /// Every node asked takes part (the share of session 16 off), as these
    /// rules were written before it; the share's own tests are below.
    private var everyoneAnswers: NewcomerAnswers.Policy {
        var policy = NewcomerAnswers.Policy()
        policy.answerers = 0
        return policy
    }

    @Test func aSmallLANAnswersAtOnce() {
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        for known in [1, 2, 20] {
            let asked1 = answers.request(for: newcomer, at: .seconds(1), knownNodes: known, random: 0.5)
            #expect(asked1 == .now)
        }
        #expect(answers.nextDue == nil)
    }

    @Test func theBaselineAnswersAtOnceWhateverTheSize() {
        var policy = everyoneAnswers
        policy.delays = false
        var answers = NewcomerAnswers(policy: policy)
        let asked2 = answers.request(for: newcomer, at: .seconds(1), knownNodes: 1_000, random: 0.5)
        #expect(asked2 == .now)
    }

    @Test func aLargeLANWaitsTwentyToAHundredTwentyMilliseconds() {
        let clock = ManualClock()
        var early = NewcomerAnswers(policy: everyoneAnswers)
        var late = NewcomerAnswers(policy: everyoneAnswers)
        let start = clock.uptime()
        let asked3 = early.request(for: newcomer, at: start, knownNodes: 21, random: 0)
        #expect(asked3 == .later(start + .milliseconds(20)))
        let asked4 = late.request(for: newcomer, at: start, knownNodes: 100, random: 1)
        #expect(asked4 == .later(start + .milliseconds(120)))
        // Asked again (a second beacon of the burst), the same wait.
        let asked5 = late.request(for: newcomer, at: start + .milliseconds(50), knownNodes: 100, random: 0)
        #expect(asked5
                == .later(start + .milliseconds(120)))
        clock.advance(by: .milliseconds(19))
        let outcome6 = early.due(at: clock.uptime())
        #expect(outcome6 == .init())
        clock.advance(by: .milliseconds(1))
        let outcome7 = early.due(at: clock.uptime())
        #expect(outcome7 == .init(broadcast: true))
        #expect(early.nextDue == nil && early.suppressed == 0)
    }

    @Test func theWindowGrowsWithTheLANUpToASecond() {
        let answers = NewcomerAnswers(policy: everyoneAnswers)
        #expect(answers.window(knownNodes: 21) == .milliseconds(120))
        #expect(answers.window(knownNodes: 120) == .milliseconds(120))
        #expect(answers.window(knownNodes: 500) == .milliseconds(500))
        #expect(answers.window(knownNodes: 10_000) == .seconds(1))
    }

    @Test func aNewcomerLinkedMeanwhileIsNotAnswered() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 50, random: 0.5)
        answers.linked(newcomer)
        clock.advance(by: .milliseconds(200))
        let outcome8 = answers.due(at: clock.uptime())
        #expect(outcome8 == .init())
        #expect(answers.suppressed == 1)
        #expect(!answers.dialsEarly(newcomer))
    }

    @Test func ourOwnBeaconIsTheAnswer() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 50, random: 0.5)
        answers.sentBeacon()
        clock.advance(by: .milliseconds(200))
        let outcome9 = answers.due(at: clock.uptime())
        #expect(outcome9 == .init())
        #expect(answers.nextDue == nil)
    }

    @Test func enoughOtherAnswersTurnOursIntoADial() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 50, random: 1)
        for _ in 0..<answers.policy.enough { answers.heardLinkedBeacon() }
        clock.advance(by: .milliseconds(120))
        let outcome10 = answers.due(at: clock.uptime())
        #expect(outcome10 == .init(broadcast: false, dial: [newcomer]))
        #expect(answers.dialsEarly(newcomer))
        #expect(answers.suppressed == 1)
        // Linked by that dial: nothing left to do for it.
        answers.linked(newcomer)
        #expect(!answers.dialsEarly(newcomer) && answers.suppressed == 1)
    }

    @Test func aFailedDialIsAnsweredAfterAll() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 50, random: 0)
        for _ in 0..<answers.policy.enough { answers.heardLinkedBeacon() }
        clock.advance(by: .milliseconds(20))
        let outcome11 = answers.due(at: clock.uptime())
        #expect(outcome11.dial == [newcomer])
        let failed12 = answers.dialFailed(newcomer)
        #expect(failed12)
        #expect(!answers.dialsEarly(newcomer) && answers.suppressed == 0)
        // Only once, and never for a dial that was not an answer.
        let failed13 = answers.dialFailed(newcomer)
        #expect(!failed13)
        let failed14 = answers.dialFailed(second)
        #expect(!failed14)
    }

    @Test func fewerAnswersThanEnoughStillBroadcast() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 50, random: 1)
        for _ in 1..<answers.policy.enough { answers.heardLinkedBeacon() }
        clock.advance(by: .milliseconds(120))
        let outcome15 = answers.due(at: clock.uptime())
        #expect(outcome15 == .init(broadcast: true))
        #expect(!answers.dialsEarly(newcomer) && answers.suppressed == 0)
    }

    @Test func beaconsHeardBeforeTheRequestDoNotCount() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        for _ in 0..<10 { answers.heardLinkedBeacon() }
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 50, random: 0)
        clock.advance(by: .milliseconds(20))
        let outcome16 = answers.due(at: clock.uptime())
        #expect(outcome16 == .init(broadcast: true))
    }

    @Test func oneBroadcastAnswersEveryNewcomerWaiting() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 50, random: 0)
        _ = answers.request(for: second, at: clock.uptime(), knownNodes: 50, random: 1)
        clock.advance(by: .milliseconds(20))
        let outcome17 = answers.due(at: clock.uptime())
        #expect(outcome17 == .init(broadcast: true))
        #expect(answers.nextDue == nil)
    }

    @Test func aDialDueBesideABroadcastStaysADial() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: everyoneAnswers)
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 50, random: 0)
        for _ in 0..<answers.policy.enough { answers.heardLinkedBeacon() }
        _ = answers.request(for: second, at: clock.uptime(), knownNodes: 50, random: 0)
        clock.advance(by: .milliseconds(20))
        let outcome18 = answers.due(at: clock.uptime())
        #expect(outcome18 == .init(broadcast: true, dial: [newcomer]))
    }

    @Test func waitingIsBoundedAndOverflowAnswersAtOnce() {
        var policy = everyoneAnswers
        policy.maxWaiting = 4
        var answers = NewcomerAnswers(policy: policy)
        let numbers = (0..<5).map { TestNetwork.key(29_200 + UInt64($0)).nodeNumber }
        for number in numbers.prefix(4) {
            let asked19 = answers.request(for: number, at: .seconds(1), knownNodes: 50, random: 0.5)
            #expect(asked19 != .now)
        }
        let asked20 = answers.request(for: numbers[4], at: .seconds(1), knownNodes: 50, random: 0.5)
        #expect(asked20 == .now)
        // Gone newcomers are forgotten, which makes room.
        answers.forget { $0 == numbers[0] }
        let asked21 = answers.request(for: numbers[4], at: .seconds(1), knownNodes: 50, random: 0.5)
        #expect(asked21 != .now)
    }

    @Test func earlyDialsAreBoundedAndForgottenWhenGone() {
        var policy = everyoneAnswers
        policy.maxWaiting = 2
        policy.enough = 0
        var answers = NewcomerAnswers(policy: policy)
        let numbers = (0..<3).map { TestNetwork.key(29_300 + UInt64($0)).nodeNumber }
        for number in numbers.prefix(2) {
            _ = answers.request(for: number, at: .zero, knownNodes: 50, random: 0)
        }
        let outcome22 = answers.due(at: .seconds(1))
        #expect(outcome22.dial.count == 2)
        // Two dials wait for their links: the next newcomer is answered as before.
        let asked23 = answers.request(for: numbers[2], at: .seconds(1), knownNodes: 50, random: 0)
        #expect(asked23 == .now)
        answers.forget { $0 == numbers[0] }
        #expect(!answers.dialsEarly(numbers[0]) && answers.dialsEarly(numbers[1]))
        let asked24 = answers.request(for: numbers[2], at: .seconds(1), knownNodes: 50, random: 0)
        #expect(asked24 != .now)
    }

    // Links bounded (the overlay above its threshold, session 16): a few answer, known answers drop it.

    @Test func withLinksBoundedOnlyAShareOfTheLANAnswers() {
        var answers = NewcomerAnswers(policy: .init())
        #expect(answers.share(knownNodes: 16) == 1)
        #expect(answers.share(knownNodes: 1_000) == 0.016)
        let skipped = answers.request(for: newcomer, at: .seconds(1), knownNodes: 1_000, boundedLinks: true, random: 0.016)
        #expect(skipped == .skipped)
        #expect(answers.nextDue == nil && answers.suppressed == 1)
        // The draw under the share also sets the wait, over the whole window.
        let chosen = answers.request(for: newcomer, at: .seconds(1), knownNodes: 1_000, boundedLinks: true, random: 0.015_999_999)
        #expect(chosen.isLaterWithin(.seconds(1) + .milliseconds(900), .seconds(2)))
        // Without links bounded the same share answers, and the others dial the newcomer.
        var full = NewcomerAnswers(policy: .init())
        let dials = full.request(for: newcomer, at: .seconds(1), knownNodes: 1_000, random: 0.9)
        #expect(dials == .dial && full.dialsEarly(newcomer) && full.nextDue == nil)
        let answering = full.request(for: second, at: .seconds(1), knownNodes: 1_000, random: 0.001)
        #expect(answering.isLaterWithin(.seconds(1), .seconds(2)) && !full.dialsEarly(second))
        // A LAN up to `quietSize` answers at once, every node.
        let small = full.request(for: second, at: .seconds(1), knownNodes: 20, random: 0.9)
        #expect(small == .now)
    }

    @Test func withLinksBoundedAnyoneElsesBeaconIsAKnownAnswerAndNoDialFollows() {
        let clock = ManualClock()
        var answers = NewcomerAnswers(policy: .init())
        _ = answers.request(for: newcomer, at: clock.uptime(), knownNodes: 1_000, boundedLinks: true, random: 0)
        // The newcomer's own burst is no answer.
        for _ in 0..<5 { answers.heardBeacon(from: newcomer) }
        for _ in 1..<answers.policy.enough { answers.heardBeacon(from: second) }
        #expect(answers.nextDue != nil)
        clock.advance(by: .seconds(1))
        var probe = answers
        #expect(probe.due(at: clock.uptime()) == .init(broadcast: true))
        answers.heardBeacon(from: second)
        let outcome = answers.due(at: clock.uptime())
        #expect(outcome == .init())
        #expect(!answers.dialsEarly(newcomer) && answers.suppressed == 1 && answers.nextDue == nil)
    }

    @Test func unlinkedBeaconsDoNotCountWithoutLinksBoundedNorInTheBaseline() {
        var baseline = NewcomerAnswers.Policy()
        baseline.answerers = 0
        for (policy, bounded, draw) in [(NewcomerAnswers.Policy(), false, 0.001), (baseline, true, 0.9)] {
            var answers = NewcomerAnswers(policy: policy)
            let asked = answers.request(for: newcomer, at: .zero, knownNodes: 1_000, boundedLinks: bounded, random: draw)
            #expect(asked != .skipped)
            for _ in 0..<10 { answers.heardBeacon(from: second) }
            #expect(answers.due(at: .seconds(2)) == .init(broadcast: true))
        }
    }
}

private extension NewcomerAnswers.Request {
    func isLaterWithin(_ low: Duration, _ high: Duration) -> Bool {
        if case .later(let due) = self { return due >= low && due <= high }
        return false
    }
}
