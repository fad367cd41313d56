import ChatCore
import ChatNode
import Foundation

/// The file commands: `/send NAME PATH` (`sendFile`), `/accept-file`,
/// `/decline-file`, `/cancel-file`, `/files`.
extension CommandExecutor {
    func runFile(_ command: ControlCommand) async throws(NodeError) -> CommandResult {
        guard let files = await node.files else { throw .file("file transfer is not available on this node") }
        switch command {
        case .sendFile(let name, let path):
            guard case .direct(let number) = try await node.room(named: name) else { throw .file("files go to a peer, not to #public") }
            guard let peer = await node.peers().first(where: { $0.number == number }) else {
                throw .file("\(name) is not linked now; a file is offered to a peer that is online")
            }
            let offered = try await files.send(path: Self.expandingTilde(path), to: peer)
            await askForConversation(about: offered)
            return .fileOffered(offered)
        case .acceptFile(let id):
            _ = try await files.accept(id)
            return .done
        case .declineFile(let id):
            try await files.decline(id)
            return .done
        case .cancelFile(let id):
            try await files.cancel(id)
            return .done
        default:
            return .files(await files.list())
        }
    }

    /// The peer holds an offer from someone it has no DM conversation
    /// with until it accepts a DM request: make that request (or answer
    /// theirs) with a line naming the file. A request already waiting, or
    /// one the peer declined, is left as it is.
    private func askForConversation(about offer: FileTransfer) async {
        let state = await node.rooms().first { $0.room == .direct(offer.peer) }?.dmState ?? DMState.none
        guard [DMState.none, .declinedByMe, .incomingRequest].contains(state) else { return }
        _ = try? await node.sendDirect("offers a file: \(offer.name) (\(offer.size) bytes)", to: offer.peer)
    }

    /// `~/x` as the shell would read it (a person types paths that way).
    static func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = ProcessInfoHome.value else { return path }
        return home + path.dropFirst()
    }
}

/// `$HOME`, read once.
enum ProcessInfoHome {
    static let value: String? = {
        ProcessInfo.processInfo.environment["HOME"]
    }()
}
