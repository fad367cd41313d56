import ChatCore

/// Quiet overlay links (capability `quietLinks`, PROTOCOL.md 5.1): on a
/// stretched overlay link whose both ends speak it, the dialler marks its
/// pings quiet (`content` "quiet") and then pings every 12 s instead of 4 s;
/// while its last ping was quiet, both ends wait 36 s with nothing received
/// before they count the peer dead (`LinkLifecycle.silentAfter`).
/// An idle node's keepalives were a third of its wake-ups (docs/BENCHMARKS.md,
/// "What an idle node pays for"). A peer without the capability never gets
/// a quiet ping, so it hears from this end as often as before.
extension P2PService {
    static let quietCapability = "quietLinks"
    /// The `content` of a quiet ping (an ordinary ping's is "").
    static let quietPingContent = "quiet"

    /// This end may ping `link` quietly: it dialled it, both ends speak
    /// `quietLinks`, and it runs the link stretched (`linkLoad`).
    func pingsQuietly(_ link: PeerLink) -> Bool {
        link.direction == .outbound && link.speaksQuiet && configuration.overlay != nil
    }

    /// A keepalive or any other ping: quiet where this end may ping quietly.
    func writePing(to link: PeerLink) {
        write(ControlFrame.encode(ping(for: link)), to: link)
    }

    /// A ping to write on `link`, quiet where this end may ping quietly
    /// (noted as the dialler's ping).
    func ping(for link: PeerLink) -> P2PPayload {
        var ping = control(.ping)
        let quiet = overlayIsPartial && link.speaksOverlay && !link.onDemand && pingsQuietly(link)
        if quiet { ping.content = Self.quietPingContent }
        if link.direction == .outbound { core.noteDialerPing(link.id, at: now, quiet: quiet) }
        return ping
    }

    /// A ping arrived on `link`: the dialler's, quiet or not, is noted (an
    /// acceptor's own pings do not change how often the dialler pings).
    func notePingReceived(_ payload: P2PPayload, on link: PeerLink) {
        guard link.direction == .inbound else { return }
        let quiet = payload.content == Self.quietPingContent && configuration.overlay != nil
        core.noteDialerPing(link.id, at: now, quiet: quiet)
    }
}
