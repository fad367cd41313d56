import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Points file descriptor 2 at a file while the full-screen client owns
/// the terminal, so nothing the logger does not see (a C library, the
/// runtime's last words before a crash) can write over the screen; `end()`
/// gives stderr back. The logger itself never writes to stderr there.
final class StandardErrorRedirect: Sendable {
    private let saved: Int32

    /// Sends stderr to `path` (appended); nil if it cannot.
    init?(path: String) {
        let target = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard target >= 0 else { return nil }
        defer { close(target) }
        saved = dup(STDERR_FILENO)
        guard saved >= 0 else { return nil }
        guard dup2(target, STDERR_FILENO) >= 0 else { close(saved); return nil }
    }

    func end() {
        dup2(saved, STDERR_FILENO)
        close(saved)
    }
}
