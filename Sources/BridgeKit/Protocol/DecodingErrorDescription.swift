import Foundation

/// A `DecodingError` as the page sees it: a message and the coding path of the failure,
/// written like a JavaScript property path (`buttons[1].title`), without Swift's debug text.
struct DecodingErrorDescription {
    let message: String
    let path: String

    /// - Parameters:
    ///   - error: the decoder's error.
    ///   - subject: what did not decode, for the message: the call's `options` (the default) or
    ///     a native-to-page call's `answer`.
    init(_ error: DecodingError, of subject: String = "options") {
        let context: DecodingError.Context
        let what: String
        switch error {
        case .typeMismatch(let type, let c):
            context = c
            what = "expected \(Self.expected(type))"
        case .valueNotFound(let type, let c):
            context = c
            what = "expected \(Self.expected(type)) but found null or nothing"
        case .keyNotFound(let key, let c):
            context = DecodingError.Context(codingPath: c.codingPath + [key], debugDescription: c.debugDescription)
            what = "the required member is missing"
        case .dataCorrupted(let c):
            context = c
            what = "the value is not valid here"
        @unknown default:
            context = DecodingError.Context(codingPath: [], debugDescription: String(describing: error))
            what = "the \(subject) could not be decoded"
        }
        // The path holds the page's member names: repeated only in part when long.
        path = BridgeError.excerpt(Self.path(context.codingPath))
        message = path.isEmpty ? "Invalid \(subject): \(what)." : "Invalid \(subject) at \(path): \(what)."
    }

    /// What the page should have sent for a value Swift decodes as `type`, in JSON's terms: a
    /// keyed container (Foundation names it `Dictionary<String, Any>`) is an object, an unkeyed
    /// one an array; other types keep their Swift name.
    static func expected(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Dictionary<") { return "an object" }
        if name.hasPrefix("Array<") { return "an array" }
        switch type {
        case is String.Type, is Substring.Type, is Character.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type, is UInt.Type, is UInt8.Type,
            is UInt16.Type, is UInt32.Type, is UInt64.Type:
            return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        case is Data.Type:
            return "base64 text (a binary value, an ArrayBuffer, typed array or Blob, needs a BridgeBinary field)"
        default: return "a value of type \(name)"
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath where key.stringValue != "options" || !text.isEmpty {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
