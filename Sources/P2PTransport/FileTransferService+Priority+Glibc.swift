#if canImport(Glibc)
import Glibc

extension FileTransferService {
    /// The niceness of a transfer's threads: chat, the screen and the
    /// node's tasks run at 0 and so come first when the cores are busy.
    /// The price: on a machine busy with other work at 0, a transfer gets
    /// a smaller share of the cores than it would at 0.
    public static let linkNiceness: Int32 = 10

    /// Lowers the calling thread's scheduling priority: Linux keeps a nice
    /// value per thread, and `who` 0 is the calling thread alone. A
    /// transfer keeps every core busy for as long as it runs; at equal
    /// priority a chat message waited behind its threads (bench row
    /// `file-chat`, 2 busy cores: p99 18-44 ms at nice 0, mostly 8-15 ms
    /// at nice 10). Only for threads the transfer code starts, never a
    /// shared pool's: the change cannot be undone without privilege.
    @Sendable static func runBehindChat() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, linkNiceness)
    }
}
#endif
