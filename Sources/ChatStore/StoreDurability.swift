/// How hard a commit pushes to the disk; see ChatStore.docc/Durability.md.
public enum StoreDurability: Hashable, Sendable {
    /// `synchronous=FULL`: the WAL is fsynced at every commit, so a message
    /// survives a power loss or OS crash once `insert` returns. The default.
    case full
    /// `synchronous=NORMAL`: a message survives the process being killed
    /// once `insert` returns, but a power loss may take the last commits
    /// (never corrupting the file). Cheaper; for bots and throwaway nodes.
    case normal

    var pragma: String {
        switch self {
        case .full: "FULL"
        case .normal: "NORMAL"
        }
    }
}
