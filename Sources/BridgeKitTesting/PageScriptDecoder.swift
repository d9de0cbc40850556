import Foundation

// Compiled into the fuzz target too (scripts/fuzz), where BridgeKit is not a module of its own.
#if !ROUTER_FUZZ
public import BridgeKit
#endif

/// Reads the message back out of a script built by BridgeKit's `PageScript`, the way the page's
/// engine would see it.
///
/// Accepts both forms the script builder writes: a JSON expression in argument position, and
/// `JSON.parse("...")` (for the whole argument or a member's value) for texts with a key that
/// means `"__proto__"`. The `\u2028`, `\u2029` and `\u003c`
/// escapes are valid JSON escapes, so a JSON decoder restores the original strings.
public enum PageScriptDecoder {
    /// The message passed to `function` in `script`, or `nil` when the script does not call it.
    ///
    /// An escaped lone surrogate in it, which the page's `JSON.parse` accepts and Foundation's
    /// decoder refuses, is read as U+FFFD; a reply that still does not decode is read as a failed
    /// reply of its id with the code `test_undecodable_reply`.
    public static func message(in script: String, calling function: PageFunction = .receive) -> JSONValue? {
        guard let argument = argumentText(of: script, calling: function) else { return nil }
        return DeliveredMessage.decode(argument)
    }

    /// The JSON text of the argument passed to `function`, with every `JSON.parse("…")` in it
    /// replaced by the text it parses: the whole argument (``PageScript/build(calling:json:)``)
    /// or a member's value (a reply whose result has a `__proto__` key).
    public static func argumentText(of script: String, calling function: PageFunction = .receive) -> String? {
        let prefix = function.source + "("
        let suffix = ");void 0"
        guard script.hasPrefix(prefix), script.hasSuffix(suffix) else { return nil }
        let inner = Array(script.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count))
        return unwrappingParseCalls(inner).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `text` with each `JSON.parse(<string literal>)` outside JSON strings replaced by the
    /// literal's content; `nil` when a call's literal does not decode.
    static func unwrappingParseCalls(_ text: [UInt8]) -> [UInt8]? {
        let call = Array("JSON.parse(".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var index = 0
        var inString = false
        while index < text.count {
            let byte = text[index]
            if inString {
                out.append(byte)
                if byte == UInt8(ascii: "\\"), index + 1 < text.count {
                    out.append(text[index + 1])
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "J"), text[index...].starts(with: call) {
                // The literal: from its quote to the closing quote, then `)`.
                let start = index + call.count
                var end = start + 1
                while end < text.count, text[end] != UInt8(ascii: "\"") {
                    end += text[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard end < text.count, end + 1 < text.count, text[end + 1] == UInt8(ascii: ")"),
                    let content = try? BridgeJSON.decode(String.self, from: Data(text[start...end]))
                else { return nil }
                out.append(contentsOf: content.utf8)
                index = end + 2
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true }
            out.append(byte)
            index += 1
        }
        return out
    }
}
