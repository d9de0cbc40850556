public import BridgeKit
import Foundation

/// Reads the message back out of a script built by BridgeKit's `PageScript`, the way the page's
/// engine would see it.
///
/// Accepts both forms the script builder writes: a JSON expression in argument position, and
/// `JSON.parse("...")` for texts with a `"__proto__"` key. The `\u2028`, `\u2029` and `\u003c`
/// escapes are valid JSON escapes, so a JSON decoder restores the original strings.
public enum PageScriptDecoder {
    /// The message passed to `function` in `script`, or `nil` when the script does not call it.
    public static func message(in script: String, calling function: PageFunction = .receive) -> JSONValue? {
        guard let argument = argumentText(of: script, calling: function) else { return nil }
        return try? BridgeJSON.decode(JSONValue.self, from: Data(argument.utf8))
    }

    /// The JSON text of the argument passed to `function`, unwrapped from `JSON.parse("…")` if
    /// needed.
    public static func argumentText(of script: String, calling function: PageFunction = .receive) -> String? {
        let prefix = function.source + "("
        let suffix = ");void 0"
        guard script.hasPrefix(prefix), script.hasSuffix(suffix) else { return nil }
        let inner = String(script.dropFirst(prefix.count).dropLast(suffix.count))
        guard inner.hasPrefix("JSON.parse("), inner.hasSuffix(")") else { return inner }
        let literal = String(inner.dropFirst("JSON.parse(".count).dropLast())
        return try? BridgeJSON.decode(String.self, from: Data(literal.utf8))
    }
}
