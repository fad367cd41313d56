/// What the node's file transfers need from the store.
public protocol FileTransferStoring: Actor {
    /// Inserts or replaces the transfer's row.
    func save(_ transfer: FileTransfer) async throws(StoreError)
    /// Every remembered transfer, oldest first.
    func fileTransfers() async throws(StoreError) -> [FileTransfer]
    func deleteFileTransfer(_ id: MessageID) async throws(StoreError)
}
