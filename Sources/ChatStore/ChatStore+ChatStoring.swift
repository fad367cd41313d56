import ChatCore

/// The SQLite store behind the node's storage port: every requirement is
/// one of its own methods.
extension ChatStore: ChatStoring {}
