/// Text a page wrote, made safe to print on a terminal: every control character a terminal would
/// act on is written as an escape (`\n`, `\r`, `\u{1B}`): C0 but the tab, DEL and C1; and so are
/// the characters a Unicode-aware reader of the output acts on: U+2028 and U+2029 (line breaks
/// to log viewers and `splitlines`) and the bidi controls (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069, which reorder what is shown). What a page writes (console
/// lines, alert texts, error messages) must not move the cursor, retitle the terminal, set its
/// clipboard (OSC 52), begin a line of its own that looks like the app's, or show its text in
/// another order. Used by BridgeKitGTK's console output and bridgehost.
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

    /// Whether `text` has a character ``safe(_:)`` escapes. ASCII text, most of it, is checked as
    /// bytes (C0 and DEL are single bytes); text with any other character scalar by scalar (a scan
    /// of scalars for all text cost the main actor a tenth of its time under a console flood).
    private static func hasControl(_ text: String) -> Bool {
        for byte in text.utf8 {
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F { return true }
            if byte >= 0x80 { return text.unicodeScalars.contains(where: isControl) }
        }
        return false
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x00..<0x20, 0x7F...0x9F: true
        // Line and paragraph separators (Unicode line breaks), and the bidi marks, embeddings,
        // overrides and isolates (Unicode Bidirectional Algorithm, UAX #9).
        case 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
