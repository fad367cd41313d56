/// Who the local node is. Injected into the chat models (never a global), so
/// `isFromCurrentUser` is decided against it.
public struct NodeIdentity: Hashable, Sendable, Codable {
    public var number: NodeNumber
    public var nickname: String
    /// A free label (team, track, cohort); nil for none.
    public var stage: String?

    public init(number: NodeNumber, nickname: String, stage: String? = nil) {
        self.number = number
        self.nickname = nickname
        self.stage = stage
    }
}

/// Why a nickname or stage was refused.
public enum NameValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(characters: Int, limit: Int)
    case tooManyBytes(bytes: Int, limit: Int)
    case controlCharacters

    public var description: String {
        switch self {
        case .empty: "name is empty"
        case .tooLong(let characters, let limit): "name is \(characters) characters long; the limit is \(limit)"
        case .tooManyBytes(let bytes, let limit): "name is \(bytes) bytes of UTF-8; the limit is \(limit)"
        case .controlCharacters: "name contains control characters"
        }
    }
}

public enum NodeName {
    /// A trimmed nickname or stage of 1...32 characters (128 bytes) with no control
    /// characters (peers' names reach terminals).
    public static func validated(_ name: String) throws(NameValidationError) -> String {
        let trimmed = name.trimmingWhitespace()
        if trimmed.isEmpty { throw .empty }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .controlCharacters
        }
        // Bytes first: 32 characters of stacked combining marks could
        // otherwise push a beacon past its 1 KiB.
        if trimmed.utf8.count > ChatLimits.maxNameBytes {
            throw .tooManyBytes(bytes: trimmed.utf8.count, limit: ChatLimits.maxNameBytes)
        }
        let characters = trimmed.count
        if characters > ChatLimits.maxNameCharacters {
            throw .tooLong(characters: characters, limit: ChatLimits.maxNameCharacters)
        }
        return trimmed
    }
}
