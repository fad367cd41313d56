/// What a frame is. Decoding never fails on a type this build does not know:
/// it becomes `.unknown(name)`, which the router counts and skips, so newer
/// peers can add types without breaking older ones.
public enum PayloadType: Hashable, Sendable, Codable, CustomStringConvertible {
    /// First frame on a link: identity and capabilities.
    case hello
    case publicMessage
    case directMessage
    case dmRequest
    case dmAccept
    case dmDecline
    /// Acknowledges a stored DM (`refId` names it).
    case ack
    /// The sender is shutting down cleanly.
    case leave
    case historyRequest
    case historyReply
    case ping
    case pong
    /// File transfer (PROTOCOL.md, "File transfer"): offer, answers, cancel.
    case fileOffer
    case fileAccept
    case fileDecline
    case fileCancel
    /// The receiver already holds the verified file (answer to a repeated offer).
    case fileDone
    case unknown(String)

    public static let known: [PayloadType] = [
        .hello, .publicMessage, .directMessage, .dmRequest, .dmAccept, .dmDecline,
        .ack, .leave, .historyRequest, .historyReply, .ping, .pong,
        .fileOffer, .fileAccept, .fileDecline, .fileCancel, .fileDone,
    ]

    public init(name: String) {
        switch name {
        case "hello": self = .hello
        case "publicMessage": self = .publicMessage
        case "directMessage": self = .directMessage
        case "dmRequest": self = .dmRequest
        case "dmAccept": self = .dmAccept
        case "dmDecline": self = .dmDecline
        case "ack": self = .ack
        case "leave": self = .leave
        case "historyRequest": self = .historyRequest
        case "historyReply": self = .historyReply
        case "ping": self = .ping
        case "pong": self = .pong
        case "fileOffer": self = .fileOffer
        case "fileAccept": self = .fileAccept
        case "fileDecline": self = .fileDecline
        case "fileCancel": self = .fileCancel
        case "fileDone": self = .fileDone
        default: self = .unknown(name)
        }
    }

    /// The key frames of this type are counted under (`/stats`): its name,
    /// or "unknown" for every type the node does not know, so a peer that
    /// invents names cannot grow the counters without limit.
    public var counterKey: String {
        if case .unknown = self { return "unknown" }
        return name
    }

    public var name: String {
        switch self {
        case .hello: "hello"
        case .publicMessage: "publicMessage"
        case .directMessage: "directMessage"
        case .dmRequest: "dmRequest"
        case .dmAccept: "dmAccept"
        case .dmDecline: "dmDecline"
        case .ack: "ack"
        case .leave: "leave"
        case .historyRequest: "historyRequest"
        case .historyReply: "historyReply"
        case .ping: "ping"
        case .pong: "pong"
        case .fileOffer: "fileOffer"
        case .fileAccept: "fileAccept"
        case .fileDecline: "fileDecline"
        case .fileCancel: "fileCancel"
        case .fileDone: "fileDone"
        case .unknown(let name): name
        }
    }

    /// Types that travel only on the link to `targetNumber`.
    public var isDirect: Bool {
        switch self {
        case .directMessage, .dmRequest, .dmAccept, .dmDecline, .ack: true
        case .fileOffer, .fileAccept, .fileDecline, .fileCancel, .fileDone: true
        default: false
        }
    }

    /// The file transfer types (the node hands them to its file transfers).
    public var isFileTransfer: Bool {
        switch self {
        case .fileOffer, .fileAccept, .fileDecline, .fileCancel, .fileDone: true
        default: false
        }
    }

    /// Types whose `content` is chat text under the 240-character rule.
    public var carriesChatText: Bool {
        switch self {
        case .publicMessage, .directMessage, .dmRequest: true
        default: false
        }
    }

    public var description: String { name }

    public init(from decoder: any Decoder) throws {
        self.init(name: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
