import ChatCore

/// One clear error when the store stops taking writes (disk full, I/O
/// error), one notice when it takes them again; not one per message, and
/// not one per switch while a nearly full disk takes some commits and
/// refuses others (`NodeLimits.storageRecoveryQuiet`). The
/// node keeps linking and serving meanwhile: unstored frames are not
/// acknowledged, so their senders retry, and nothing acknowledged is lost.
extension ChatNode {
    func storeFailed(_ error: StoreError, what: String) {
        counters.commitFailures += 1
        lastStoreFailureAt = clock.uptime()
        guard storeFailure == nil else {
            logger.debug("could not store \(what): \(error)")
            return
        }
        storeFailure = error
        logger.error("history store failed, nothing new is stored until it recovers: \(error)")
        emit(.storage(failure: error.description))
    }

    /// Live public messages in a failed commit are not sent again by their
    /// authors (DMs are: their outbox retries until acked). They were never
    /// counted by the catch-up cursor, so each author still linked joins the
    /// catch-up round shortly: its pages from our cursor hold them, and a
    /// page that fails to commit too is asked again until the store writes.
    func recoverLostPublicMessages(_ plan: NodePlan) {
        let authors = Set(plan.changes.messages.lazy
            .filter { $0.room == .publicRoom && $0.senderNumber != self.identity.number }
            .map(\.senderNumber))
        for peer in authors where directory[peer] != nil && lostPublicFrom.insert(peer).inserted {
            Task { [weak self, clock] in
                try? await clock.sleep(for: NodeLimits.catchUpRetry)
                await self?.askAfterLoss(peer)
            }
        }
    }

    private func askAfterLoss(_ peer: NodeNumber) async {
        lostPublicFrom.remove(peer)
        guard state == .running, directory[peer] != nil else { return }
        if let ask = catchUp.recover(peer) { await requestCatchUp(ask) }
    }

    /// A commit went through. Said as a recovery once no write has been
    /// refused for `storageRecoveryQuiet`; until then a check waits on the
    /// clock, and a refusal meanwhile pushes it back.
    func storeHealthy() {
        guard storeFailure != nil else { return }
        lastStoreSuccessAt = clock.uptime()
        let quiet = clock.uptime() - (lastStoreFailureAt ?? .zero)
        guard quiet >= NodeLimits.storageRecoveryQuiet else {
            scheduleStoreRecoveryCheck(after: NodeLimits.storageRecoveryQuiet - quiet)
            return
        }
        storeFailure = nil
        logger.notice("history store writes again")
        emit(.storage(failure: nil))
    }

    private func scheduleStoreRecoveryCheck(after wait: Duration) {
        guard !storeRecoveryCheckPending else { return }
        storeRecoveryCheckPending = true
        Task { [weak self, clock] in
            try? await clock.sleep(for: wait)
            await self?.storeRecoveryCheckDue()
        }
    }

    /// The wait is over: recovered if nothing was refused since; if a
    /// refusal came and a write went through after it, wait out the rest;
    /// else the next write that goes through checks again.
    private func storeRecoveryCheckDue() {
        storeRecoveryCheckPending = false
        guard state == .running, storeFailure != nil else { return }
        let failedAt = lastStoreFailureAt ?? .zero
        let quiet = clock.uptime() - failedAt
        if quiet >= NodeLimits.storageRecoveryQuiet {
            storeHealthy()
        } else if let wroteAt = lastStoreSuccessAt, wroteAt > failedAt {
            scheduleStoreRecoveryCheck(after: NodeLimits.storageRecoveryQuiet - quiet)
        }
    }
}
