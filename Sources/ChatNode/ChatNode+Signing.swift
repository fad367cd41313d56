import ChatCore
import Foundation

/// Signing the public messages of a step on every core. An Ed25519
/// signature costs tens of microseconds, by far the largest part of
/// planning a public message; a step of many sends composes them all on
/// the step's router copy first (ids and order as before), signs them in
/// parallel off the actor, then plans them in command order.
extension ChatNode {
    /// Fewer public messages than this in a step are signed inline: a task
    /// per chunk costs more than it saves.
    static let parallelSigningThreshold = 4

    /// Plans the step's commands in their order (see `planCommand`).
    func planCommands(_ commands: [PendingCommand], now: Int64, on scratch: inout MessageRouter, into plan: inout NodePlan) async {
        let publicCount = commands.count { if case .sendPublic = $0.command { true } else { false } }
        guard let authenticator, publicCount >= Self.parallelSigningThreshold else {
            for command in commands { planCommand(command, now: now, on: &scratch, into: &plan) }
            return
        }
        var composed: [(payload: P2PPayload, message: Message)?] = Array(repeating: nil, count: commands.count)
        var unsigned: [P2PPayload] = []
        for (index, command) in commands.enumerated() {
            guard case .sendPublic(let text, let automatic) = command.command else { continue }
            do throws(ChatError) {
                let made = try scratch.publicChat.compose(text, at: now, automatic: automatic)
                composed[index] = made
                unsigned.append(made.payload)
            } catch {
                command.resume(.failure(.chat(error)))
            }
        }
        var signed = await Self.sign(unsigned, with: authenticator)[...]
        for (index, command) in commands.enumerated() {
            guard case .sendPublic = command.command else {
                planCommand(command, now: now, on: &scratch, into: &plan)
                continue
            }
            guard var made = composed[index] else { continue }  // refused and answered above
            made.payload = signed.removeFirst()
            if made.payload.signature == nil { logger.error("could not sign public message \(made.payload.messageId); peers will refuse it") }
            made.message.signature = made.payload.signature
            made.message.authorKey = made.payload.authorKey
            planPublic(made, into: &plan)
            plan.effects.append(.resume(command, .success(made.message)))
            plan.commands.append(command)
        }
    }

    /// `payloads` signed, in order, split into one chunk per core. Runs off
    /// the actor (nonisolated), which meanwhile takes transport events.
    nonisolated static func sign(_ payloads: [P2PPayload], with authenticator: any MessageAuthenticator) async -> [P2PPayload] {
        let chunks = max(1, min(ProcessInfo.processInfo.activeProcessorCount, payloads.count / parallelSigningThreshold))
        let size = (payloads.count + chunks - 1) / chunks
        return await withTaskGroup(of: (Int, [P2PPayload]).self) { group in
            for start in stride(from: 0, to: payloads.count, by: size) {
                let chunk = Array(payloads[start..<min(start + size, payloads.count)])
                group.addTask {
                    (start, chunk.map { payload in
                        var payload = payload
                        authenticator.sign(&payload)
                        return payload
                    })
                }
            }
            var signed = payloads
            for await (start, chunk) in group { signed.replaceSubrange(start..<start + chunk.count, with: chunk) }
            return signed
        }
    }
}
