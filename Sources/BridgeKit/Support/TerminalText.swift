/// Text a page wrote, made safe to print on a terminal: every control character a terminal would
/// act on is written as an escape (`\n`, `\r`, `\u{1B}`): C0 but the tab, DEL and C1. What a
/// page writes (console lines, alert texts, error messages) must not move the cursor, retitle
/// the terminal, set its clipboard (OSC 52) or begin a line of its own that looks like the
/// app's. Used by BridgeKitGTK's console output and bridgehost.
package enum TerminalText {
    /// `text` with its control characters escaped (see the type).
    package static func safe(_ text: String) -> String {
        guard hasControl(text) else { return text }
        var safe = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                safe.append(scalar)
                continue
            }
            let escaped: String =
                switch scalar {
                case "\n": "\\n"
                case "\r": "\\r"
                default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                }
            safe.append(contentsOf: escaped.unicodeScalars)
        }
        return String(safe)
    }

    /// Whether `text` has a control character, read as UTF-8 bytes: C0 and DEL are single bytes
    /// (a byte under 0x80 is always a whole character), C1 is `C2 80`–`C2 9F`. Most text has none,
    /// and this runs over every console line (a scan of scalars cost the main actor a tenth of
    /// its time under a console flood).
    private static func hasControl(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) {
                return true
            }
            previous = byte
        }
        return false
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }
}
