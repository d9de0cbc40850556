import Testing

@testable import BridgeKit

/// `TerminalText.safe` escapes every character a terminal acts on (C0 but the tab, DEL, C1) and
/// nothing else; its fast check reads UTF-8 bytes, so it is held against a check of each scalar.
@Suite("Terminal-safe text")
struct TerminalTextTests {
    @Test(
        "control characters are escaped, everything else kept",
        arguments: [
            ("plain", "plain"),
            ("tab\tkept", "tab\tkept"),
            ("a\nb\rc", "a\\nb\\rc"),
            ("\u{1B}]52;c;AAAA\u{7}", "\\u{1B}]52;c;AAAA\\u{7}"),
            ("del\u{7F}", "del\\u{7F}"),
            ("c1\u{85}\u{9B}", "c1\\u{85}\\u{9B}"),
            ("Â\u{80}", "Â\\u{80}"),
            ("\u{A0}é漢🙂\u{A0}", "\u{A0}é漢🙂\u{A0}"),
            ("\u{C2}\u{A0}", "\u{C2}\u{A0}"),
        ])
    func escapes(text: String, expected: String) {
        #expect(TerminalText.safe(text) == expected)
    }

    @Test("every scalar up to U+0800, alone and after a Latin-1 letter, is escaped exactly when it is a control")
    func everyScalar() {
        for value in UInt32(0)..<0x800 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let isControl = (value < 0x20 && value != 0x09) || (0x7F...0x9F).contains(value)
            for text in [String(Character(scalar)), "Â" + String(Character(scalar)) + "x"] {
                #expect((TerminalText.safe(text) != text) == isControl, "U+\(String(value, radix: 16))")
            }
        }
    }
}
