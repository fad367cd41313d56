import Foundation

/// What one size of the overlay-processes row measured, and how the row prints it.
extension ProcessSwarm {
    struct Figures: Sendable {
        var size = 0
        var fullMesh = false
        var launchSeconds = 0.0
        /// Seconds launching waited for the nodes' CPU (`LaunchPacer`).
        var launchWaits = 0.0
        /// From the first launch, and from the last node's ready, to formed (nil: never).
        var formedFromLaunch: Double?
        var formedFromReady: Double?
        var links: [Int] = []
        var components = 0
        var linkEventsIdle = 0
        var idleCores = Double.nan
        var idleWindow = 0.0
        var startCPU = Double.nan
        var pss: [Double] = []
        var descriptors: [Int] = []
        var messages = 0
        var reach = 0.0
        var duplicates = 0
        var latencyP50 = Double.nan
        var latencyP99 = Double.nan
        var latencyMax = Double.nan
        /// The message phase's CPU of all nodes beyond their idle rate, a
        /// message, and overlay frames (gossip, IHAVE, GRAFT, PRUNE) each
        /// node received a message: what bounds the p99 on a shared host.
        var messageCPU = Double.nan
        var overlayFramesPerMessage = Double.nan
        var loadBefore = Double.nan
        var loadIdle = Double.nan
        var loadEnd = Double.nan
        /// Transport counters summed over every node, their growth during the idle window.
        var idleCounters: [String: Int] = [:]
        /// Nodes whose overlay ran above its threshold, and active views (min/p50/max).
        var partial = 0
        var active: [Int] = []
        /// Each node's estimate of the LAN's size at its last beacon turn.
        var sizeEstimates: [Int] = []
        /// Launched, ready and groups every 10 s from the first launch.
        var timeline = SwarmTimeline()
        /// Processes launched (fewer than `size` if launching ran past its share of the budget).
        var launched = 0
        /// Transport counters summed over every node from its start until
        /// formed (or the wait's end), and that span in seconds.
        var startCounters: [String: Int] = [:]
        var startSpan = Double.nan

        /// Broadcasts (beacons of every kind, answers among them) the LAN
        /// carried a second from the first launch until formed, and answers alone.
        var startBeaconsPerSecond: Double { Double(startCounters["beaconsSent"] ?? 0) / startSpan }
        var startAnswersPerSecond: Double { Double(startCounters["answersBroadcast"] ?? 0) / startSpan }

        var summary: String {
            let formed = formedFromLaunch.map { String(format: "formed %.1f s from first launch (%.1f s after last ready, launched over %.1f s, %.0f s of it waiting for CPU)", $0, formedFromReady ?? .nan, launchSeconds, launchWaits) }
                ?? String(format: "NOT formed (%d groups, %d of %d launched, %d ready) after launching over %.1f s (%.0f s waiting for CPU)",
                          components, launched, size, links.count, launchSeconds, launchWaits)
            return "\(size)\(fullMesh ? " full mesh" : ""): \(formed); links min/p50/max \(Self.spread(links)); "
                + String(format: "idle CPU of all %.2f cores; PSS p50 %@ (max %@); fds p50 %d; ", idleCores,
                         Measure.mib(Measure.percentile(pss, 0.5)), Measure.mib(pss.max() ?? .nan),
                         Int(Measure.percentile(descriptors.map(Double.init), 0.5)))
                + String(format: "start: %.1f broadcasts/s LAN-wide (%.1f answers/s); ", startBeaconsPerSecond, startAnswersPerSecond)
                + String(format: "%d messages: reach %.2f%%, %d duplicates, latency p50 %.0f ms / p99 %.0f ms / max %.0f ms; ",
                         messages, reach * 100, duplicates, latencyP50 * 1000, latencyP99 * 1000, latencyMax * 1000)
                + String(format: "a message cost all nodes %.0f ms of CPU beyond idle (%.0f µs a node), %.1f overlay frames received a node; ",
                         messageCPU * 1000, messageCPU * 1e6 / Double(max(1, size)), overlayFramesPerMessage)
                + String(format: "load %.1f/%.1f/%.1f", loadBefore, loadIdle, loadEnd)
        }

        var note: String {
            let views = Self.spread(active)
            let counters = Self.shownCounters.map { "\($0) \(idleCounters[$0] ?? 0)" }.joined(separator: ", ")
            let start = ["beaconsSent", "answersBroadcast", "answersSuppressed", "beaconsSkipped", "beaconsReceived"]
                .map { "\($0) \(startCounters[$0] ?? 0)" }.joined(separator: ", ")
            return String(format: "%d: %d link changes during the %.0f s idle window (transport counters over it, all nodes: %@); %d nodes above the threshold, active views %@, LAN size estimates %@; the nodes used %.1f s of CPU until formed; load average before / idle / end; from start until formed (%.0f s), all nodes: %@; over time: %@",
                          size, linkEventsIdle, idleWindow, counters, partial, views, Self.spread(sizeEstimates), startCPU, startSpan, start, timeline.summary)
        }

        /// min/p50/max of per-node values, "-" if none.
        static func spread(_ values: [Int]) -> String {
            let sorted = values.sorted()
            return sorted.isEmpty ? "-" : "\(sorted.first!)/\(sorted[sorted.count / 2])/\(sorted.last!)"
        }

        static let shownCounters = ["linksAccepted", "linksDialled", "dialFailures", "handshakeTimeout", "overlayCloses",
                                    "beaconsSent", "beaconsReceived", "beaconsSkipped", "answersBroadcast", "refusedAnnouncements",
                                    "overlayFramesSent", "framesSent", "timerWakes", "pollBatches", "deadPeer", "duplicateLinks",
                                    "refusedLinkCap", "refusedConnectionRate"]

        func numbers(prefix: String) -> [String: Double] {
            let sorted = links.sorted()
            return [
                "\(prefix)size": Double(size), "\(prefix)formed_from_launch_s": formedFromLaunch ?? .infinity,
                "\(prefix)formed_from_ready_s": formedFromReady ?? .infinity, "\(prefix)launch_s": launchSeconds,
                "\(prefix)launch_wait_s": launchWaits,
                "\(prefix)links_min": Double(sorted.first ?? 0), "\(prefix)links_p50": Double(sorted.isEmpty ? 0 : sorted[sorted.count / 2]),
                "\(prefix)links_max": Double(sorted.last ?? 0), "\(prefix)idle_cores": idleCores,
                "\(prefix)link_changes_idle": Double(linkEventsIdle), "\(prefix)start_cpu_s": startCPU,
                "\(prefix)pss_p50_kib": Measure.percentile(pss, 0.5), "\(prefix)pss_max_kib": pss.max() ?? .nan,
                "\(prefix)fds_p50": Measure.percentile(descriptors.map(Double.init), 0.5),
                "\(prefix)fds_max": Double(descriptors.max() ?? 0), "\(prefix)reach": reach,
                "\(prefix)duplicates": Double(duplicates), "\(prefix)latency_p50_s": latencyP50,
                "\(prefix)latency_p99_s": latencyP99, "\(prefix)latency_max_s": latencyMax,
                "\(prefix)message_cpu_s": messageCPU, "\(prefix)overlay_frames_per_message": overlayFramesPerMessage,
                "\(prefix)load_before": loadBefore, "\(prefix)load_idle": loadIdle, "\(prefix)load_end": loadEnd,
                "\(prefix)components": Double(components), "\(prefix)launched": Double(launched),
                "\(prefix)start_beacons_per_s": startBeaconsPerSecond, "\(prefix)start_answers_per_s": startAnswersPerSecond,
            ]
        }
    }
}
