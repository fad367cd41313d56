import ChatCore

/// Why bytes from a peer could not be decoded into a frame. Every malformed
/// input maps to one of these; none crashes and none is a silent nil.
public enum FrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The frame is not valid UTF-8.
    case invalidUTF8
    /// The frame is not JSON.
    case notJSON
    /// The JSON is valid but not an object.
    case notAnObject
    /// A required field is missing.
    case missingField(String)
    /// A field has the wrong JSON type (e.g. a string where a number goes).
    case wrongFieldType(String)
    /// A field has the right type but an impossible value.
    case invalidValue(field: String, reason: String)
    /// An object repeats this key. Readers disagree on which value wins
    /// (JSONDecoder keeps one silently, Python and JavaScript the last), so
    /// such a frame is refused rather than read one way here and another
    /// way by a monitor.
    case duplicateKey(String)

    public var description: String {
        switch self {
        case .invalidUTF8: "frame is not valid UTF-8"
        case .notJSON: "frame is not JSON"
        case .notAnObject: "frame is not a JSON object"
        case .missingField(let field): "missing field \(field)"
        case .wrongFieldType(let field): "wrong type for field \(field)"
        case .invalidValue(let field, let reason): "invalid \(field): \(reason)"
        case .duplicateKey(let key): "duplicate key \(key)"
        }
    }
}
