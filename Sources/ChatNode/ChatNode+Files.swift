import ChatCore

extension ChatNode {
    /// Hands file frames and peer changes to `files` from now on (call
    /// before `start`, so no peer change is missed).
    public func attach(files: FileTransfers) {
        self.files = files
        fileNotices = files.noticeSink
    }
}
