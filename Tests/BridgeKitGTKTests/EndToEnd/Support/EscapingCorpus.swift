#if WebKitGTK
import BridgeKit

/// The escaping corpus of the end-to-end tests (field cases R01, R02, R04, R05, R06, R08): each
/// entry is a Swift value and the same value as page JavaScript built by ``E2EPage/jsExpression(_:)``,
/// which does not use BridgeKit's encoder.
enum EscapingCorpus {
    /// One megabyte (UTF-8) of a pattern that mixes every kind of character that needs care.
    static let oneMegabyte: String = repeated(to: 1 << 20)

    /// `count` UTF-8 bytes (rounded down to whole patterns) of quotes, backslashes, separators,
    /// NUL, non-ASCII and astral characters.
    static func repeated(to bytes: Int) -> String {
        String(repeating: pattern, count: bytes / pattern.utf8.count)
    }

    static let pattern = "0123456789abcdef\"'\\\n\u{2028}</script>${x}`\u{0}é😀"

    /// Name -> value. Strings and objects; `large` is the 1 MB string (its JS is a `.repeat`).
    static let entries: [(name: String, value: JSONValue)] = [
        ("quotes", "It's \"two\" 'three' \\\" \\'"),
        ("backslashes", #"C:\tmp\ \\server\share \u0041 \n \"#),
        ("crlf", "a\r\nb\rc\nd\u{0B}e\u{0C}f\tg"),
        ("separators", "A\u{2028}B\u{2029}C"),
        ("script", "</script><b>x</b></ScRiPt><!--x--><script>window.__injected=1</script>"),
        ("template", "${window.probe}`${1+1}` \\` `"),
        ("nul", "a\u{0}b\u{0}"),
        ("controls", .string(String(String.UnicodeScalarView((1...31).compactMap(Unicode.Scalar.init) + ["\u{7F}"])))),
        ("astral", "😀👍🏽 𝄞 Zoë Alegoría 東京 👨‍👩‍👧"),
        ("combining", "Cafe\u{301} vs Caf\u{E9}"),
        ("noncharacters", "\u{FEFF}\u{FFFE}\u{FFFF}\u{10FFFF}"),
        ("jsonText", #"{"inner":"{\"k\":\"v\\\\w\"}"}"#),
        ("bare", "12'3"),
        ("R01", ["text": "Line one\nIt's \"two\"", "path": #"C:\tmp"#]),
        ("R02", ["items": [["title": "A\u{2028}B", "body": ["p": "C\u{2029}D"]]]]),
        ("R05", ["title": "Alegoría", "artist": "Zoë", "mood": "😀👍🏽"]),
        ("R06", ["note": "</script><b>x</b>", "alt": "</ScRiPt>", "c": "<!--"]),
        ("R08", ["msg": "a\nb", "tpl": "${window.probe}", "tick": "`"]),
        ("keys", ["</script>": "k1", "a\u{2028}b": ["\u{0}", 1, true, nil], "${x}": "k3", "": "empty"]),
    ]

    /// The JavaScript expression of entry `name`'s value.
    static func jsExpression(_ value: JSONValue) -> String {
        E2EPage.jsExpression(value)
    }

    /// A page script that defines `window.__expected` (name -> value) for every entry and the
    /// 1 MB string as `large`, and a `window.probe` getter that records any interpolation (R08).
    static var pageSetupScript: String {
        let members = entries.map { "[\(E2EPage.jsLiteral($0.name))]: \(jsExpression($0.value))" }
        let count = oneMegabyte.utf8.count / pattern.utf8.count
        return """
            window.__probeHits = 0;
            Object.defineProperty(window, 'probe', { get: function () { window.__probeHits++; throw new Error('interpolated'); } });
            window.__expected = {\(members.joined(separator: ",\n"))};
            window.__expected.large = \(E2EPage.jsLiteral(pattern)).repeat(\(count));
            """
    }

    /// Every entry including `large`.
    static var allEntries: [(name: String, value: JSONValue)] {
        entries + [("large", .string(oneMegabyte))]
    }

    /// Whether two JSON values are equal with every string compared by its UTF-8 bytes (Swift's
    /// `==` on strings uses canonical equivalence, which would hide a normalisation).
    static func byteEqual(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)):
            return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy(byteEqual)
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            let bytesA = Dictionary(uniqueKeysWithValues: a.map { (Array($0.key.utf8), $0.value) })
            let bytesB = Dictionary(uniqueKeysWithValues: b.map { (Array($0.key.utf8), $0.value) })
            return bytesA.allSatisfy { key, value in bytesB[key].map { byteEqual(value, $0) } ?? false }
        default:
            return lhs == rhs
        }
    }
}
#endif
