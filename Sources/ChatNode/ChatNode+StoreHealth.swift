import ChatCore
import ChatStore

/// One clear error when the store stops taking writes (disk full, I/O
/// error), one notice when it takes them again; not one per message. The
/// node keeps linking and serving meanwhile: unstored frames are not
/// acknowledged, so their senders retry, and nothing acknowledged is lost.
extension ChatNode {
    func storeFailed(_ error: StoreError, what: String) {
        counters.commitFailures += 1
        guard storeFailure == nil else {
            logger.debug("could not store \(what): \(error)")
            return
        }
        storeFailure = error
        logger.error("history store failed, nothing new is stored until it recovers: \(error)")
        emit(.storage(failure: error.description))
    }

    func storeHealthy() {
        guard storeFailure != nil else { return }
        storeFailure = nil
        logger.notice("history store writes again")
        emit(.storage(failure: nil))
    }
}
