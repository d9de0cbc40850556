import Testing

@testable import BridgeKit

/// `TerminalText.safe` escapes every character a terminal acts on (C0 but the tab, DEL, C1), the
/// Unicode line and paragraph separators and the bidi controls (attack 22), and nothing else; its
/// fast check reads ASCII as bytes, so it is held against a list of each scalar.
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
            ("ok\u{2028}CONSOLE ERROR forged", "ok\\u{2028}CONSOLE ERROR forged"),
            ("a\u{2029}b", "a\\u{2029}b"),
            ("pay \u{202E}gnp.exe", "pay \\u{202E}gnp.exe"),
            ("\u{2066}x\u{2069}\u{200F}", "\\u{2066}x\\u{2069}\\u{200F}"),
        ])
    func escapes(text: String, expected: String) {
        #expect(TerminalText.safe(text) == expected)
    }

    @Test("every scalar up to U+2FFF, alone and after other text, is escaped exactly when it is one of those")
    func everyScalar() {
        let unicode: Set<UInt32> = [
            0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068,
            0x2069,
        ]
        for value in UInt32(0)..<0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let isControl = (value < 0x20 && value != 0x09) || (0x7F...0x9F).contains(value) || unicode.contains(value)
            for text in [
                String(Character(scalar)), "Â" + String(Character(scalar)) + "x", "ab" + String(Character(scalar)),
            ] {
                #expect((TerminalText.safe(text) != text) == isControl, "U+\(String(value, radix: 16))")
            }
        }
    }
}
