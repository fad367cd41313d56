/// A mouse report in SGR form (`ESC[<b;x;yM`, `m` on release), which the
/// session asks for with `ESC[?1000h ESC[?1006h`. Rows and columns count
/// from 0, like `ScreenGrid`.
public struct MouseEvent: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        /// A button went down: 0 left, 1 middle, 2 right.
        case press(Int)
        case release(Int)
        case wheelUp, wheelDown
    }

    public var action: Action
    public var row: Int
    public var column: Int

    public init(_ action: Action, row: Int, column: Int) {
        self.action = action
        self.row = row
        self.column = column
    }

    /// Decodes the parameters of an SGR report (`b;x;y`, 1-based x and y)
    /// and its final byte; nil for motion and buttons it does not know.
    public init?(sgr parameters: String, final: UInt8) {
        let fields = parameters.split(separator: ";").map { Int($0) }
        guard fields.count == 3, let code = fields[0], let x = fields[1], let y = fields[2], x >= 1, y >= 1 else { return nil }
        // Bits 2-4 are Shift/Alt/Ctrl, 32 is motion; neither changes what is meant here.
        if code & 32 != 0 { return nil }
        let button = code & ~0b1_1100
        switch button {
        case 0...2: action = final == UInt8(ascii: "M") ? .press(button) : .release(button)
        case 64: action = .wheelUp
        case 65: action = .wheelDown
        default: return nil
        }
        row = y - 1
        column = x - 1
    }
}
