import ChatCore

/// Writing the key ledger. A peer can mint identities for free, so a
/// sighting (a key seen at a join or rename) must not cost an fsync on the
/// node's drainer: it is applied in memory at once and marked dirty, and
/// the dirty keys and pins are written together (`KeyLedger.writeDelay`
/// after the first, at once past `KeyLedger.writeBatch`, before a step
/// stores anything from a dirty key, with any other ledger write, and at
/// stop). A crash loses at most the last `writeDelay` of sightings of keys
/// nothing was stored from: never a verification, a key the user talked
/// with, or the pin of a key whose messages are on disk.
///
/// The other writes (verify, talked with) are planned on the ledger,
/// committed with the dirty rows, then applied: memory follows the disk.
/// One write at a time (`lockKeys`), sightings included, so a row written
/// is always memory's current row, never an older one.
extension ChatNode {
    /// Applies a sighting in memory and schedules its write.
    func noteSighting(key: String, nickname: String, now: Int64) async {
        await lockKeys()
        defer { unlockKeys() }
        let changes = keyContinuity.ledger.planSighting(key: key, nickname: nickname, now: now)
        guard !changes.isEmpty else { return }
        keyContinuity.ledger.apply(changes)
        noteNumbers(changes)
        let touched = changes.touched
        keyContinuity.dirtyKeys.formUnion(touched.keys)
        keyContinuity.dirtyPins.formUnion(touched.pins)
        if keyContinuity.dirtyKeys.count >= KeyLedger.writeBatch {
            await flushLocked()
        } else {
            scheduleKeyFlush()
        }
    }

    /// Plans on the ledger, commits the plan with the dirty rows, then
    /// applies. False if the store refused (memory unchanged).
    @discardableResult
    func writeKeys(_ plan: (KeyLedger) -> KeyChanges?) async -> Bool {
        await lockKeys()
        defer { unlockKeys() }
        guard let changes = plan(keyContinuity.ledger), !changes.isEmpty else { return true }
        var next = keyContinuity.ledger
        next.apply(changes)
        let touched = changes.touched
        let rows = next.rows(keys: touched.keys.union(keyContinuity.dirtyKeys), pins: touched.pins.union(keyContinuity.dirtyPins))
        do {
            try await store.commitKeys(rows)
        } catch {
            logger.warning("key ledger not stored: \(error)")
            return false
        }
        keyContinuity.ledger = next
        keyContinuity.dirtyKeys = []
        keyContinuity.dirtyPins = []
        noteNumbers(changes)
        return true
    }

    /// Writes the dirty rows now (a timer, stop, a step about to store
    /// something from a dirty key).
    func flushKeys() async {
        guard !keyContinuity.dirtyKeys.isEmpty || !keyContinuity.dirtyPins.isEmpty else { return }
        await lockKeys()
        defer { unlockKeys() }
        await flushLocked()
    }

    /// Before a step stores `messages`: the keys of their senders that are
    /// not on disk yet are written first, so history never holds messages
    /// whose author's key (and nickname pin) a crash could lose.
    func flushKeys(before messages: [Message]) async {
        guard !keyContinuity.dirtyKeys.isEmpty, !messages.isEmpty else { return }
        let dirty = Set(keyContinuity.dirtyKeys.compactMap { keyContinuity.numbers[$0] })
        guard messages.contains(where: { dirty.contains($0.senderNumber) }) else { return }
        await flushKeys()
    }

    private func flushLocked() async {
        let keys = keyContinuity.dirtyKeys, pins = keyContinuity.dirtyPins
        guard !keys.isEmpty || !pins.isEmpty else { return }
        keyContinuity.dirtyKeys = []
        keyContinuity.dirtyPins = []
        do {
            // Rows as memory holds them now: a retry after a failure never writes an older row.
            try await store.commitKeys(keyContinuity.ledger.rows(keys: keys, pins: pins))
            keyContinuity.flushFailing = false
        } catch {
            // Retried each `writeDelay`: said once per run of failures, not each time.
            if !keyContinuity.flushFailing { logger.warning("key ledger not stored (retried): \(error)") }
            keyContinuity.flushFailing = true
            keyContinuity.dirtyKeys.formUnion(keys)
            keyContinuity.dirtyPins.formUnion(pins)
        }
    }

    /// One timer at a time, on the node's clock.
    private func scheduleKeyFlush() {
        guard !keyContinuity.flushScheduled else { return }
        keyContinuity.flushScheduled = true
        let clock = self.clock
        Task { [weak self] in
            try? await clock.sleep(for: KeyLedger.writeDelay)
            await self?.keyFlushTimerFired()
        }
    }

    private func keyFlushTimerFired() async {
        keyContinuity.flushScheduled = false
        guard state == .running else { return }  // stop() flushes
        await flushKeys()
        if !keyContinuity.dirtyKeys.isEmpty || !keyContinuity.dirtyPins.isEmpty { scheduleKeyFlush() }  // a failed write is retried
    }

    private func noteNumbers(_ changes: KeyChanges) {
        for key in changes.removedKeys { keyContinuity.numbers[key] = nil }
        for record in changes.keys where keyContinuity.numbers[record.key] == nil {
            keyContinuity.numbers[record.key] = Self.number(of: record.key)
        }
    }

    private func lockKeys() async {
        while keyContinuity.writing { await withCheckedContinuation { keyContinuity.waiters.append($0) } }
        keyContinuity.writing = true
    }

    private func unlockKeys() {
        keyContinuity.writing = false
        if !keyContinuity.waiters.isEmpty { keyContinuity.waiters.removeFirst().resume() }
    }
}
