import Foundation

/// Which peers and messages to show, by stage. One selection at a time: the
/// presets are "everyone", "people with no stage", or one named stage.
///
/// Stage names compare after trimming and without regard to case, so
/// `/filter ios` finds a peer whose stage is "iOS"; a blank stage counts as
/// no stage. Text form (for `/filter` and `--json`): `all`, `none`, or the
/// stage name; `stage:<name>` names a stage literally called "all" or "none".
public enum ChatFilter: Hashable, Sendable, Codable, CustomStringConvertible {
    case all
    /// Peers and messages with no stage.
    case noStage
    /// Peers and messages of one stage.
    case stage(String)

    /// Whether something with `stage` passes the filter.
    public func matches(stage: String?) -> Bool {
        let normalized = Self.normalize(stage)
        switch self {
        case .all:
            return true
        case .noStage:
            return normalized == nil
        case .stage(let wanted):
            guard let normalized, let wanted = Self.normalize(wanted) else { return false }
            return normalized.compare(wanted, options: [.caseInsensitive]) == .orderedSame
        }
    }

    /// The peers that pass, in their original order.
    public func apply(to peers: [PeerInfo]) -> [PeerInfo] {
        if case .all = self { return peers }
        return peers.filter { matches(stage: $0.stage) }
    }

    /// The messages whose sender's stage (as sent with the message) passes,
    /// in their original order.
    public func apply(to messages: [Message]) -> [Message] {
        if case .all = self { return messages }
        return messages.filter { matches(stage: $0.senderStage) }
    }

    /// Parses the text form; nil for blank input.
    public init?(_ text: String) {
        let trimmed = text.trimmingWhitespace()
        switch trimmed.lowercased() {
        case "": return nil
        case "all": self = .all
        case "none": self = .noStage
        default:
            if trimmed.lowercased().hasPrefix("stage:") {
                guard let name = Self.normalize(String(trimmed.dropFirst("stage:".count))) else { return nil }
                self = .stage(name)
            } else {
                self = .stage(trimmed)
            }
        }
    }

    /// The text form, which `init?(_:)` reads back.
    public var description: String {
        switch self {
        case .all: "all"
        case .noStage: "none"
        case .stage(let name):
            ["all", "none"].contains(name.lowercased()) || name.lowercased().hasPrefix("stage:") ? "stage:\(name)" : name
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let filter = ChatFilter(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "empty filter")
        }
        self = filter
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func normalize(_ stage: String?) -> String? {
        guard let trimmed = stage?.trimmingWhitespace(), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
