import ChatCore

/// A peer heard through beacons: where to dial it, and when.
struct Announcement: Sendable {
    var number: NodeNumber
    var nickname: String
    var stage: String?
    var instanceId: String
    /// The beacon's source address with its announced TCP port.
    var endpoint: IPv4Endpoint
    var lastSeen: Duration
    /// Since when there has been no link to it (first beacon, or link loss);
    /// nil while linked. Drives the higher number's fallback dial.
    var unlinkedSince: Duration?
    var backoff: Backoff
    /// Earliest time for the next dial.
    var nextDialAt: Duration
    /// A dial was due but the dial caps were full (counted once).
    var dialDeferred = false
    /// A handshake with this number has succeeded (any instance): proof a
    /// forger cannot make, so beacons never crowd it out.
    var hasLinked = false
    /// Beacons heard from this instance (capped): an honest node repeats
    /// its own, a flood of inventions sends each once, so under pressure
    /// the once-heard go first and are dialled last.
    var heardCount = 1
}

/// What the wake plan's passes read of an announcement (its dial and
/// expiry times, how often it was heard): plain values, so a pass over a
/// thousand of them touches no string storage. A pass over the entries
/// copied each one and retained its strings: on one host of 1,000 nodes,
/// a quarter of all CPU while messages streamed (issue 29).
struct Timing: Sendable, Hashable {
    var nextDialAt: Duration
    var unlinkedSince: Duration?
    var lastSeen: Duration
    var heardCount: Int

    init(_ announcement: Announcement) {
        nextDialAt = announcement.nextDialAt
        unlinkedSince = announcement.unlinkedSince
        lastSeen = announcement.lastSeen
        heardCount = announcement.heardCount
    }
}

/// The peers announced on the discovery port, keyed by node number: one
/// entry per number, the latest instance wins. Presence for the node comes
/// from links, not from here; this decides whom to dial.
///
/// Pure state: every method takes the time, so tests drive it without a
/// network or a clock.
struct AnnouncementTable: Sendable {
    enum Observation: Sendable, Hashable {
        /// First beacon from this number.
        case new
        /// A beacon from a new instance of a known number.
        case restarted(previousInstance: String)
        /// Same instance; nickname, stage or endpoint changed.
        case changed
        /// Same instance, nothing new.
        case refreshed
        /// An instance that said leave on its link; its late beacons are ignored.
        case departed
        /// A new number, not recorded: the table or the address's share is full.
        case refused
    }

    private(set) var entries: [NodeNumber: Announcement] = [:]
    /// What the passes run at every wake-up read of each entry, without its
    /// strings (`Timing`), kept beside `entries` by every change to them.
    private(set) var timings: [NodeNumber: Timing] = [:]
    /// The numbers announced from each source address: the per-address
    /// share is checked, and its eviction chosen, without a pass over the
    /// whole table (a flood brings a new number every 0.1 ms).
    private var numbersByAddress: [UInt32: Set<NodeNumber>] = [:]
    /// When an entry was last forgotten to make room: while that is recent
    /// the table is under pressure (`isCrowded`).
    private(set) var lastEvictionAt: Duration?
    /// Instance ids that said leave, with when; forgotten after a while
    /// (instance ids are per start, so they never come back anyway).
    private var departed: [String: Duration] = [:]
    let backoffBase: Duration
    let backoffCap: Duration
    /// Bounds on what beacons can make the node remember (`PeerLimits`).
    let maxEntries: Int
    let maxPerAddress: Int
    /// The share of a loopback address (127/8), where every node on this
    /// host beacons from: a share of 128 there made each of 1,000 nodes
    /// on one host know ~140 of them (issue 29). Bounded by `maxEntries`.
    let maxPerLoopbackAddress: Int
    /// Entries forgotten to make room for a new number.
    private(set) var evictions = 0
    /// How often numbers forgotten to make room had been heard, the last
    /// `evictedMemory` of them or so (two generations, each up to half).
    /// During a flood an entry lives only until ~`maxPerAddress` newer
    /// inventions push it out (13 ms at 10k/s with the default 128), too
    /// short for the dial or answer budget to reach it; a real node repeats
    /// its beacon (its start burst, then every interval) and comes back
    /// with its count, so its entry then outranks every once-heard
    /// invention and is neither evicted nor dialled after them.
    private var recentlyEvicted: [NodeNumber: Int] = [:]
    private var earlierEvicted: [NodeNumber: Int] = [:]
    static let evictedMemory = 8_192
    /// Instances whose entries expired, with how often they had been heard
    /// (at most `maxEntries`): the same instance heard again is no
    /// newcomer. On a large LAN a settled node beacons every few minutes,
    /// so an unlinked peer's entry may expire between two of its beacons,
    /// and each came back as new and drew answers (issue 29). A restart
    /// is a new instance, and a newcomer still.
    private var expiredInstances: [String: Int] = [:]

    init(backoffBase: Duration, backoffCap: Duration, maxEntries: Int = 1_024, maxPerAddress: Int = 128,
         maxPerLoopbackAddress: Int = 1_024) {
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
        self.maxEntries = maxEntries
        self.maxPerAddress = maxPerAddress
        self.maxPerLoopbackAddress = maxPerLoopbackAddress
    }

    /// The most numbers recorded from `address` at once.
    func share(of address: UInt32) -> Int {
        IPv4Endpoint.isLoopback(address) ? maxPerLoopbackAddress : maxPerAddress
    }

    var count: Int { entries.count }

    subscript(number: NodeNumber) -> Announcement? { entries[number] }

    mutating func observe(_ beacon: DiscoveryBeacon, from address: UInt32, at now: Duration) -> Observation {
        if departed[beacon.instanceId] != nil { return .departed }
        let endpoint = IPv4Endpoint(address: address, port: beacon.tcpPort)
        guard var known = entries[beacon.number], known.instanceId == beacon.instanceId else {
            let previous = entries[beacon.number]?.instanceId
            if previous == nil, !makeRoom(for: address, at: now) { return .refused }
            let heardBefore = previous == nil
                ? max(evictedHeardCount(of: beacon.number), expiredInstances.removeValue(forKey: beacon.instanceId) ?? 0) : 0
            if let old = entries[beacon.number] { unindex(old) }
            index(beacon.number, at: address)
            entries[beacon.number] = Announcement(
                number: beacon.number, nickname: beacon.nickname, stage: beacon.stage,
                instanceId: beacon.instanceId, endpoint: endpoint, lastSeen: now, unlinkedSince: now,
                backoff: Backoff(base: backoffBase, cap: backoffCap), nextDialAt: now,
                hasLinked: entries[beacon.number]?.hasLinked ?? false, heardCount: min(heardBefore + 1, 1_000))
            retime(beacon.number)
            return previous.map { .restarted(previousInstance: $0) } ?? .new
        }
        let changed = known.nickname != beacon.nickname || known.stage != beacon.stage || known.endpoint != endpoint
        if known.endpoint.address != address {
            unindex(known)
            index(beacon.number, at: address)
        }
        known.nickname = beacon.nickname
        known.stage = beacon.stage
        known.endpoint = endpoint
        known.lastSeen = now
        known.heardCount = min(known.heardCount + 1, 1_000)
        entries[beacon.number] = known
        timings[beacon.number] = Timing(known)
        return changed ? .changed : .refreshed
    }

    /// Whether a new number from `address` may be recorded: within the
    /// address's share and the total, once an announcement that never led
    /// to a handshake is forgotten if either is full. Refusing instead let
    /// a flood from an address (spoofed on a LAN) keep a newcomer at that
    /// address out for as long as it lasted; now the flood only churns its
    /// own inventions, and a newcomer's entry lives long enough for the
    /// dial or answer its first beacon causes at once.
    private mutating func makeRoom(for address: UInt32, at now: Duration) -> Bool {
        if let here = numbersByAddress[address], here.count >= share(of: address) {
            return evictUnproven(among: here, at: now)
        }
        guard entries.count >= maxEntries else { return true }
        return evictUnproven(among: entries.keys, at: now)
    }

    /// Entries looked at per entry forgotten, at most: a share larger than
    /// this (1024 on loopback) forgets several in one pass, so a flood
    /// filling it costs a pass per `passPerEviction` of its inventions, as
    /// a share of 128 did per one (one per invention over 1024 entries
    /// took a 10k/s loopback flood's newcomer past 2 s to link).
    static let passPerEviction = 128

    /// Forgets one of `candidates` that is unlinked and never led to a
    /// handshake (several from a large set, `passPerEviction`): the one
    /// heard fewest times (a flood's inventions are heard once; a real
    /// node repeats itself, even while a dial to it fails), then the one
    /// whose dials failed most, then the one heard least recently. False
    /// if there is none (every candidate has proven itself).
    private mutating func evictUnproven(among candidates: some Collection<NodeNumber>, at now: Duration) -> Bool {
        let batch = max(1, candidates.count / Self.passPerEviction)
        var victims: [Announcement] = []
        victims.reserveCapacity(batch + 1)
        for number in candidates {
            guard let entry = entries[number], !entry.hasLinked, entry.unlinkedSince != nil else { continue }
            if victims.count == batch, !Self.forgottenFirst(entry, before: victims[batch - 1]) { continue }
            var index = victims.count
            while index > 0, Self.forgottenFirst(entry, before: victims[index - 1]) { index -= 1 }
            victims.insert(entry, at: index)
            if victims.count > batch { victims.removeLast() }
        }
        guard !victims.isEmpty else { return false }
        for victim in victims {
            remove(victim.number)
            evictions += 1
            if recentlyEvicted.count >= Self.evictedMemory / 2 {
                earlierEvicted = recentlyEvicted
                recentlyEvicted.removeAll(keepingCapacity: true)
            }
            recentlyEvicted[victim.number] = victim.heardCount
        }
        lastEvictionAt = now
        return true
    }

    /// The eviction order: heard fewest times, then most failed dials,
    /// then heard least recently. Plain comparisons: a tuple comparison
    /// here cost a metadata look-up per entry.
    private static func forgottenFirst(_ entry: Announcement, before other: Announcement) -> Bool {
        if entry.heardCount != other.heardCount { return entry.heardCount < other.heardCount }
        if entry.backoff.failures != other.backoff.failures { return entry.backoff.failures > other.backoff.failures }
        return entry.lastSeen < other.lastSeen
    }

    /// Whether entries were forgotten to make room within `window` of
    /// `now`: a flood is on, and first contacts wait for the ordered dial
    /// pass rather than each taking the next dial token as it arrives.
    func isCrowded(at now: Duration, window: Duration) -> Bool {
        lastEvictionAt.map { now - $0 <= window } ?? false
    }

    /// How often `number` had been heard when it was last forgotten to make
    /// room (0 if it was not, lately); forgotten once read.
    private mutating func evictedHeardCount(of number: NodeNumber) -> Int {
        guard !recentlyEvicted.isEmpty || !earlierEvicted.isEmpty else { return 0 }
        return recentlyEvicted.removeValue(forKey: number) ?? earlierEvicted.removeValue(forKey: number) ?? 0
    }

    private mutating func index(_ number: NodeNumber, at address: UInt32) {
        numbersByAddress[address, default: []].insert(number)
    }

    private mutating func unindex(_ entry: Announcement) {
        let address = entry.endpoint.address
        numbersByAddress[address]?.remove(entry.number)
        if numbersByAddress[address]?.isEmpty == true { numbersByAddress[address] = nil }
    }

    /// Copies `number`'s entry's timing into `timings` after a change.
    private mutating func retime(_ number: NodeNumber) {
        timings[number] = entries[number].map(Timing.init)
    }

    private mutating func remove(_ number: NodeNumber) {
        guard let entry = entries.removeValue(forKey: number) else { return }
        timings[number] = nil
        unindex(entry)
    }

    /// The linked instance said leave in a frame on its link: its late
    /// beacons are ignored. The memory of departures is bounded like the
    /// table. (A leave datagram, which anyone can forge, changes nothing.)
    mutating func departLinked(_ number: NodeNumber, instanceId: String, at now: Duration) {
        if departed.count >= maxEntries, let oldest = departed.min(by: { $0.value < $1.value }) {
            departed[oldest.key] = nil
        }
        departed[instanceId] = now
        if entries[number]?.instanceId == instanceId { remove(number) }
    }

    /// A link to `number` is up: no dialling needed, failures forgotten.
    mutating func linked(_ number: NodeNumber) {
        entries[number]?.hasLinked = true
        entries[number]?.dialDeferred = false
        entries[number]?.unlinkedSince = nil
        entries[number]?.backoff.reset()
        retime(number)
    }

    /// The link to `number` went away or a dial failed: retry after backoff
    /// (`jitter`: its factor, drawn from 0.8...1.2).
    mutating func scheduleRedial(_ number: NodeNumber, at now: Duration, jitter: Double = Double.random(in: 0.8...1.2)) {
        guard var entry = entries[number] else { return }
        entry.dialDeferred = false
        if entry.unlinkedSince == nil { entry.unlinkedSince = now }
        entry.nextDialAt = now + entry.backoff.nextDelay(jitter: jitter)
        entries[number] = entry
        timings[number] = Timing(entry)
    }

    /// A due dial of `number` waits for a free slot; true the first time
    /// since its last dial, so the wait is counted once.
    mutating func deferDial(_ number: NodeNumber) -> Bool {
        guard let entry = entries[number], !entry.dialDeferred else { return false }
        entries[number]?.dialDeferred = true
        return true
    }

    /// Dial `number` as soon as the dial rule allows (it restarted).
    mutating func redialNow(_ number: NodeNumber, at now: Duration) {
        entries[number]?.backoff.reset()
        entries[number]?.nextDialAt = now
        if entries[number]?.unlinkedSince == nil { entries[number]?.unlinkedSince = now }
        retime(number)
    }

    /// Drops unlinked entries without a beacon for `timeout` (counted from
    /// the link's loss if later); returns their numbers. A linked peer's
    /// entry stays while the link lasts: the link is the proof of life, and
    /// on a large LAN its beacons come seldom (`BeaconSchedule`).
    /// `remember`: their instances are kept as heard (`expiredInstances`;
    /// on a large LAN, where beacons come seldom).
    @discardableResult
    mutating func expire(at now: Duration, timeout: Duration, remember: Bool = false) -> [NodeNumber] {
        // Runs every tick: nothing is copied or rebuilt unless something expires.
        var stale: [NodeNumber] = []
        for (number, timing) in timings {
            guard let unlinkedSince = timing.unlinkedSince, now - max(timing.lastSeen, unlinkedSince) > timeout else { continue }
            stale.append(number)
        }
        for number in stale {
            guard remember, let entry = entries[number] else {
                remove(number)
                continue
            }
            if expiredInstances.count >= maxEntries { expiredInstances.removeAll(keepingCapacity: true) }
            expiredInstances[entry.instanceId] = entry.heardCount
            remove(number)
        }
        if departed.values.contains(where: { now - $0 > timeout * 4 }) {
            departed = departed.filter { now - $0.value <= timeout * 4 }
        }
        return stale
    }
}
