#if WebKitGTK
/// A message a page posted to a script message handler of a ``GTKWebView``.
public struct GTKScriptMessage: Sendable {
    /// The posted value, as read on the GTK thread.
    enum Body: Sendable {
        /// A string's characters, or the JSON text of any other value.
        case text(String)
        /// A short array of strings, `null` and `undefined` (see ``GTKScriptMessage/stringElements``).
        case strings([String?])
    }

    let body: Body

    /// True when the page posted a JavaScript string (then ``bodyJSONText`` is that string itself).
    public let isString: Bool
    /// The answer channel when the handler was registered with reply, else nil.
    public let reply: ScriptMessageReply?

    init(body: Body, isString: Bool, reply: ScriptMessageReply?) {
        self.body = body
        self.isString = isString
        self.reply = reply
    }

    /// The posted value as text: the raw characters when the page posted a string, otherwise the
    /// value's JSON text (`jsc_value_to_json`; "null" when it has no JSON form, e.g. undefined).
    /// For a value with ``stringElements`` the JSON text is written on each read (what
    /// `JSON.stringify` writes for the array: `null` for null and undefined elements).
    public var bodyJSONText: String {
        switch body {
        case .text(let text): text
        case .strings(let elements): Self.jsonArray(elements)
        }
    }

    /// When the page posted an array of at most ``maxStringElements`` elements, each a string,
    /// `null` or `undefined`: its elements (`nil` for `null` and `undefined`), each string
    /// received as its own string, never escaped into JSON text (a large element is not copied
    /// again). `nil` for any other value.
    public var stringElements: [String?]? {
        if case .strings(let elements) = body { return elements }
        return nil
    }

    /// The longest array whose elements ``stringElements`` gives; longer arrays arrive as JSON text.
    public static let maxStringElements = 16

    /// `JSON.stringify` of an array of strings and nulls.
    static func jsonArray(_ elements: [String?]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        out.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard let element else {
                out.append(contentsOf: "null".utf8)
                continue
            }
            out.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case 0x08: out.append(contentsOf: #"\b"#.utf8)
                case 0x0C: out.append(contentsOf: #"\f"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                case 0x00..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}
#endif
