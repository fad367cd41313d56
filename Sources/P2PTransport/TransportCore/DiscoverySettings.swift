import ChatCore

/// What the control plane of `TransportCore` reads from the configuration
/// (`P2PConfiguration`), copied once at init: beacons, answers, the dial
/// rule's fallback, announcement lifetimes, redial backoff.
struct DiscoverySettings: Sendable {
    /// This run's instance id (our own beacons come back with it).
    var instance: String
    /// Whether beacons go out at all (a broadcast address is set).
    var beacons: Bool
    /// The beacon interval of a small LAN (`P2PConfiguration.beaconInterval`).
    var beaconInterval: Duration
    /// The short tick while something with a short deadline is under way
    /// (`P2PConfiguration.tickInterval`).
    var busyTick: Duration
    /// An announcement lives this long, stretched as the beacon schedule
    /// stretches (`TransportCore.announcementTimeout`).
    var deadPeerTimeout: Duration
    /// The higher number dials only after the peer went this long without a link.
    var fallbackDialDelay: Duration
    /// Least time between two broadcast answers.
    var answerBeaconGap: Duration
    /// Issue 29's rules for a mass start (`P2PConfiguration.massStartRules`).
    var massStartRules: Bool
    /// Redial backoff of announced and static peers.
    var reconnectDelay: Duration
    var maxReconnectDelay: Duration
    var beaconPolicy: BeaconSchedule.Policy
    var answerPolicy: NewcomerAnswers.Policy

    init(configuration: P2PConfiguration, instance: String) {
        self.instance = instance
        beacons = configuration.broadcastAddresses != []
        beaconInterval = configuration.beaconInterval
        busyTick = configuration.tickInterval
        deadPeerTimeout = configuration.deadPeerTimeout
        fallbackDialDelay = configuration.fallbackDialDelay
        answerBeaconGap = configuration.answerBeaconGap
        massStartRules = configuration.massStartRules
        reconnectDelay = configuration.reconnectDelay
        maxReconnectDelay = configuration.maxReconnectDelay
        beaconPolicy = configuration.beaconPolicy
        answerPolicy = configuration.answerPolicy
    }

    /// The configuration's defaults (the link tests need nothing else).
    init() { self.init(configuration: P2PConfiguration(), instance: "") }
}
