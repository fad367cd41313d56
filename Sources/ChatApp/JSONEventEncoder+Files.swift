import ChatCore
import ChatNode

/// `--json` file events (docs/USAGE.md, "Files"): `fileOffer`,
/// `fileAccepted`, `fileProgress`, `fileDone`, `fileFailed`.
extension JSONEventEncoder {
    public static func file(_ event: FileTransferEvent) -> [String: Any] {
        switch event {
        case .offer(let transfer):
            return ["event": "fileOffer", "id": transfer.id.description, "from": transfer.peer.rawValue,
                    "nickname": transfer.peerNickname, "name": transfer.name, "size": transfer.size, "sha256": transfer.sha256]
        case .accepted(let transfer):
            return ["event": "fileAccepted", "id": transfer.id.description, "peer": transfer.peer.rawValue]
        case .progress(let transfer):
            return ["event": "fileProgress", "id": transfer.id.description, "bytes": transfer.bytes, "size": transfer.size]
        case .done(let transfer):
            return ["event": "fileDone", "id": transfer.id.description, "path": transfer.path, "sha256": transfer.sha256,
                    "direction": transfer.direction.rawValue]
        case .failed(let transfer):
            return ["event": "fileFailed", "id": transfer.id.description, "reason": transfer.reason ?? transfer.state.rawValue,
                    "state": transfer.state.rawValue, "direction": transfer.direction.rawValue]
        }
    }

    /// One entry of `{"cmd":"files"}`'s reply.
    public static func transfer(_ transfer: FileTransfer) -> [String: Any] {
        var object: [String: Any] = [
            "id": transfer.id.description, "direction": transfer.direction.rawValue, "peer": transfer.peer.rawValue,
            "nickname": transfer.peerNickname, "name": transfer.name, "size": transfer.size, "bytes": transfer.bytes,
            "sha256": transfer.sha256, "state": transfer.state.rawValue,
        ]
        if !transfer.path.isEmpty { object["path"] = transfer.path }
        if let reason = transfer.reason { object["reason"] = reason }
        return object
    }
}
