import ChatCore
import Foundation

extension P2PService {
    /// The core's control plane is busy (`TransportCore.isBusy`: the start
    /// burst, an answer, a claim, a link's short deadline), reading is
    /// paused, or a link is throttled: the timer then runs every
    /// `tickInterval` (`nextWake`). Anything else has a deadline of its own.
    var hasShortDeadlines: Bool { core.isBusy || shellIsBusy }

    /// The shell's own short deadlines: paused reading, a throttled link.
    var shellIsBusy: Bool { readingPaused || links.values.contains(where: \.isThrottled) }

    /// Runs when the timer wakes (`nextWake`): the core's steps, with the
    /// shell's I/O between them where a step needs it first (the
    /// interfaces before a beacon turn, the discovery socket before the
    /// answers are decided, the overlay's tick before the dials).
    func tick() {
        guard lifecycle == .running, !frozen else { return }
        if core.beaconTurnDue(at: now) {
            refreshDefaultScope()
            perform(core.beaconTurn(at: now, bounded: overlayIsPartial))
        }
        core.expireAnnouncements(at: now)
        if core.answersDue(at: now) {
            // Others' answers that arrived but wait in the socket count too:
            // on a busy host timers and reads wake together, and the timer first.
            receiveDatagrams()
            perform(core.dueAnswers(at: now))
        }
        tickOverlay()
        // The view is built before the core's turn (it reads the core), and
        // only if the pass over the announcements runs.
        let view = core.dialPassDue(at: now) ? overlayView() : nil
        perform(core.dialTurn(at: now, overlay: view))
        // Reading resumes where the budget refilled; silence while this
        // side does not read is not the peer's. Then the core says what
        // each link's deadlines call for.
        let now = self.now
        for link in links.values.sorted(by: { $0.id < $1.id }) where !link.isClosed {
            if link.isThrottled { resumeReading(link) }
            if !link.isClosed, link.isThrottled || waitsForNode(link) { core.noteNotReading(link.id, at: now) }
        }
        perform(core.handle(.timerFired(at: now, load: linkLoad)))
    }

    /// The dial rule looks at announced peer `number` now (a beacon made it
    /// due, or the overlay or a DM asks for it).
    func dialAnnouncedPeers(only number: NodeNumber) {
        perform(core.handle(.dialWanted(number, at: now, overlay: overlayView(for: number))))
    }

    /// Looks static peer `index`'s name up off the actor (`.resolveStatic`).
    func resolve(staticIndex index: Int, _ address: HostPort) {
        Task { [weak self] in
            let result: Result<IPv4Endpoint, TransportError>
            do throws(TransportError) {
                result = .success(try await HostResolver.resolve(address.host, port: address.port))
            } catch {
                result = .failure(error)
            }
            await self?.resolved(staticIndex: index, address, result)
        }
    }

    private func resolved(staticIndex index: Int, _ address: HostPort, _ result: Result<IPv4Endpoint, TransportError>) {
        guard lifecycle == .running else { return }
        var endpoint: IPv4Endpoint?
        switch result {
        case .success(let resolved): endpoint = resolved
        case .failure(let error): logger.info("static peer \(address): \(error)")
        }
        perform(core.handle(.staticResolved(index, endpoint, at: now)))
    }
}
