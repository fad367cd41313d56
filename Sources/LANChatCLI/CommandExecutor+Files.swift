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
            return .fileOffered(try await files.send(path: Self.expandingTilde(path), to: peer))
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
