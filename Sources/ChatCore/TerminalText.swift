/// Makes text written by a peer safe to print on a terminal: escape
/// sequences (CSI, OSC, DCS and the rest) are removed whole, other C0 and C1
/// control characters and DEL are dropped, newlines and tabs become spaces,
/// and bidirectional overrides (which can disguise text) are dropped.
public enum TerminalText {
    public static func sanitize(_ text: String) -> String {
        var output = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:  // ESC: skip the whole sequence.
                skipEscape(after: &scalars)
            case 0x9B:  // C1 CSI
                skipControlSequence(&scalars)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F:  // C1 OSC, DCS, SOS, PM, APC
                skipString(&scalars)
            case 0x0A, 0x0D, 0x09:
                output.append(" ")
            case 0x00...0x1F, 0x7F, 0x80...0x9F:
                continue
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                continue
            default:
                output.append(scalar)
            }
        }
        return String(output)
    }

    private static func skipEscape(after scalars: inout String.UnicodeScalarView.Iterator) {
        guard let introducer = scalars.next() else { return }
        switch introducer {
        case "[": skipControlSequence(&scalars)
        case "]", "P", "X", "^", "_": skipString(&scalars)
        default:
            // Two- or three-character escapes (ESC c, ESC ( B): intermediates
            // 0x20...0x2F, then one final character, all dropped.
            var scalar: Unicode.Scalar? = introducer
            while let current = scalar, (0x20...0x2F).contains(current.value) { scalar = scalars.next() }
        }
    }

    /// CSI: parameters and intermediates up to a final byte 0x40...0x7E.
    private static func skipControlSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            if (0x40...0x7E).contains(scalar.value) { return }
            if !(0x20...0x3F).contains(scalar.value) { return }  // malformed: stop here
        }
    }

    /// OSC, DCS and friends: up to BEL or ST (ESC \ or 0x9C).
    private static func skipString(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x07, 0x9C: return
            case 0x1B:
                _ = scalars.next()  // the "\" of ESC \
                return
            default: continue
            }
        }
    }
}
