import Foundation

/// Runs `body` on a new thread and awaits its result without holding a
/// thread of the (two-thread) concurrency pool: how a row drives blocking
/// work (a raw peer's link, flood or drain).
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
