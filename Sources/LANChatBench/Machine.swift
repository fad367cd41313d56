import Foundation

/// What the numbers were measured on: cores, CPU model, memory, toolchain.
enum Machine {
    static func describe() -> [String: String] {
        var info: [String: String] = [:]
        info["cores"] = String(ProcessInfo.processInfo.activeProcessorCount)
        if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            info["cpu"] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        info["memory"] = String(format: "%.1f GiB", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
        if let kernel = try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8) {
            info["kernel"] = kernel.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return info
    }

    /// The 1-minute load average: on a shared machine, what else was running.
    static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }
}
