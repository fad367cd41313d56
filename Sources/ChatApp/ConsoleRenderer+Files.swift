import ChatCore
import ChatNode

/// File transfers on the line console and the full-screen client's status
/// line. Names and reasons come from peers: always sanitised.
extension ConsoleRenderer {
    /// The last 8 hex digits of a transfer id: what people type
    /// (`/accept-file 5e0f9a11`); the first ones are a timestamp, shared
    /// by transfers made close together.
    static func shortID(_ id: MessageID) -> String {
        String(id.description.suffix(8))
    }

    static func bytes(_ count: Int64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f %@", value, units[unit])
    }

    /// One line for a file event (the line console prints progress only
    /// at each quarter; the full-screen status line shows every update).
    static func fileNotice(_ event: FileTransferEvent) -> String? {
        func name(_ transfer: FileTransfer) -> String { TerminalText.sanitize(transfer.name) }
        func peer(_ transfer: FileTransfer) -> String { TerminalText.sanitize(transfer.peerNickname) }
        switch event {
        case .offer(let transfer):
            let id = shortID(transfer.id)
            return "\(peer(transfer)) offers \(name(transfer)) (\(bytes(transfer.size))): /accept-file \(id) or /decline-file \(id)"
        case .accepted(let transfer):
            return "\(peer(transfer)) accepted \(name(transfer)); sending"
        case .progress(let transfer):
            var line = "\(name(transfer)) \(progressBar(transfer.bytes, of: transfer.size)) of \(bytes(transfer.size))"
            if transfer.bytesPerSecond > 0, transfer.bytes < transfer.size {
                let left = (transfer.size - transfer.bytes + transfer.bytesPerSecond - 1) / transfer.bytesPerSecond
                line += " · \(bytes(transfer.bytesPerSecond))/s · \(duration(left)) left"
            }
            return line
        case .done(let transfer):
            switch transfer.direction {
            case .receiving: return "saved \(name(transfer)) from \(peer(transfer)) in \(TerminalText.sanitize(transfer.path)) (SHA-256 verified)"
            case .sending: return "\(peer(transfer)) received \(name(transfer)) (SHA-256 verified)"
            }
        case .failed(let transfer):
            return "\(name(transfer)) \(transfer.direction == .sending ? "to" : "from") \(peer(transfer)): \(TerminalText.sanitize(transfer.reason ?? transfer.state.rawValue))"
        }
    }

    /// `42 s`, `3 min 5 s`, `2 h 10 min`.
    static func duration(_ seconds: Int64) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min \(seconds % 60) s"
        default: "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        }
    }

    /// `▕██████····▏ 60%`: ten cells, each a tenth.
    static func progressBar(_ done: Int64, of total: Int64) -> String {
        let percent = total <= 0 ? 100 : Int(min(done, total) * 100 / total)
        let filled = percent / 10
        return "▕" + String(repeating: "█", count: filled) + String(repeating: "·", count: 10 - filled) + "▏ \(percent)%"
    }

    /// `/files`.
    func files(_ transfers: [FileTransfer]) -> [String] {
        guard !transfers.isEmpty else { return [notice("no file transfers")] }
        return transfers.map { transfer in
            let arrow = transfer.direction == .sending ? "→" : "←"
            var line = "#\(Self.shortID(transfer.id)) \(arrow) \(safe(transfer.peerNickname)) \(safe(transfer.name)) "
                + "\(Self.bytes(transfer.bytes))/\(Self.bytes(transfer.size)) \(transfer.state.rawValue)"
            if transfer.state == .done, transfer.direction == .receiving { line += " \(safe(transfer.path))" }
            if let reason = transfer.reason, transfer.state != .done { line += ": \(safe(reason))" }
            return "  " + line
        }
    }
}
