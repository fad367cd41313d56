import ChatCore

/// File transfer rows, behind the node's `FileTransferStoring` port.
extension ChatStore: FileTransferStoring {
    public func save(_ transfer: FileTransfer) throws(StoreError) {
        let database = try db()
        try database.withStatement("""
            INSERT OR REPLACE INTO file_transfers
                (id, direction, peer, peer_nickname, peer_key, name, size, sha256, path, modified, port, state, bytes, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """) { statement throws(StoreError) in
            try statement.bind(transfer.id, at: 1)
            try statement.bind(transfer.direction.rawValue, at: 2)
            try statement.bind(Int64(bitPattern: transfer.peer.rawValue), at: 3)
            try statement.bind(transfer.peerNickname, at: 4)
            try statement.bind(transfer.peerKey, at: 5)
            try statement.bind(transfer.name, at: 6)
            try statement.bind(transfer.size, at: 7)
            try statement.bind(transfer.sha256, at: 8)
            try statement.bind(transfer.path, at: 9)
            try statement.bind(transfer.modified, at: 10)
            try statement.bind(transfer.port, at: 11)
            try statement.bind(transfer.state.rawValue, at: 12)
            try statement.bind(transfer.bytes, at: 13)
            try statement.bind(transfer.reason, at: 14)
            try statement.run()
        }
    }

    public func fileTransfers() throws(StoreError) -> [FileTransfer] {
        let database = try db()
        return try database.withStatement("""
            SELECT id, direction, peer, peer_nickname, peer_key, name, size, sha256, path, modified, port, state, bytes, reason
            FROM file_transfers ORDER BY id
            """) { statement throws(StoreError) -> [FileTransfer] in
            var found: [FileTransfer] = []
            while try statement.step() {
                guard let id = statement.messageID(0),
                      let direction = FileTransfer.Direction(rawValue: statement.string(1) ?? ""),
                      let peer = NodeNumber(rawValue: UInt64(bitPattern: statement.int64(2))),
                      let state = FileTransfer.State(rawValue: statement.string(11) ?? "") else { continue }
                found.append(FileTransfer(
                    id: id, direction: direction, peer: peer, peerNickname: statement.string(3) ?? "",
                    peerKey: statement.string(4) ?? "", name: statement.string(5) ?? "", size: statement.int64(6),
                    sha256: statement.string(7) ?? "", path: statement.string(8) ?? "", modified: statement.int64(9),
                    port: Int(statement.int64(10)), state: state, bytes: statement.int64(12),
                    reason: statement.isNull(13) ? nil : statement.string(13)))
            }
            return found
        }
    }

    public func deleteFileTransfer(_ id: MessageID) throws(StoreError) {
        try db().withStatement("DELETE FROM file_transfers WHERE id = ?") { statement throws(StoreError) in
            try statement.bind(id, at: 1)
            try statement.run()
        }
    }
}
