import ChatCore
import Testing
@testable import ChatNode

/// The user's commands through the pure core. A command waits on a
/// continuation; the test holds it and answers it as the carrier would.
@Suite struct NodeCoreCommandTests {
    typealias F = NodeCoreFixture
    typealias Reply = CheckedContinuation<Result<Message?, NodeError>, Never>

    @Test func aCommandRefusedWhilePlanningIsANoticeAndPlansNothing() async {
        let core = F.core()
        let before = F.fingerprint(core)
        let result = await withCheckedContinuation { (reply: Reply) in
            // Nothing to accept: bob asked for no conversation.
            let step = core.plan(F.input([], commands: [PendingCommand(command: .answer(F.bob, accepting: true), reply: reply)]))
            #expect(step.plan.changes.isEmpty)
            #expect(step.plan.commands.isEmpty, "not answered again after the commit")
            #expect(step.plan.effects.isEmpty)
            guard step.plan.notices.count == 1, case .refused(let command, let error) = step.plan.notices[0] else {
                Issue.record("expected one refusal, got \(step.plan.notices)")
                reply.resume(returning: .success(nil))
                return
            }
            // The carrier answers it once the step is planned (`carry`).
            command.resume(.failure(error))
        }
        guard case .failure(.chat) = result else {
            Issue.record("expected a chat refusal, got \(result)")
            return
        }
        #expect(F.fingerprint(core) == before)
    }

    @Test func aDMToALinkedPeerIsCommittedAsSentAndSentOnlyAfterTheCommit() async {
        let core = F.core()
        let before = F.fingerprint(core)
        let result = await withCheckedContinuation { (reply: Reply) in
            let command = PendingCommand(command: .sendDirect("hello", to: F.bob, automatic: false), reply: reply)
            let input = F.input([], commands: [command])
            let step = core.plan(input)
            let sent = step.plan.changes.messages
            #expect(sent.count == 1 && sent.first?.room == .direct(F.bob))
            if let id = sent.first?.id {
                #expect(step.plan.changes.deliveries == [id: .sent], "to a linked peer: committed as sent, no second commit")
                #expect(step.plan.queued[F.bob] == [id])
            }
            #expect(step.plan.changes.conversations[F.bob]?.state == .outgoingRequest)
            #expect(step.plan.effects.contains { if case .send(_, F.bob) = $0 { true } else { false } })
            #expect(step.plan.effects.contains { if case .enqueueSent = $0 { true } else { false } })
            #expect(step.plan.commands.count == 1 && step.plan.notices.isEmpty)
            #expect(core.outbox.count == 0, "the outbox takes it when the effect runs")
            // Planned twice from the same state and input: the same plan, id
            // and all (its random bits come with the input). Other bits, another id.
            let again = core.plan(input)
            #expect(again.plan.changes.messages == sent)
            #expect(F.fingerprint(again.plan) == F.fingerprint(step.plan))
            #expect(again.scratch.directChat.idRandom == nil, "the step's bits do not outlive it")
            var other = input
            other.random = SeededRandom(seed: 0x5EED)
            let elsewhere = core.plan(other).plan.changes.messages
            #expect(elsewhere.map(\.content) == sent.map(\.content) && elsewhere.map(\.id) != sent.map(\.id))
            // The carrier answers it after the commit, from the plan's effects.
            for effect in step.plan.effects {
                if case .resume(let command, let result) = effect { command.resume(result) }
            }
        }
        guard case .success(let message?) = result else {
            Issue.record("expected the DM, got \(result)")
            return
        }
        #expect(message.content == "hello")
        #expect(F.fingerprint(core) == before)
    }
}
