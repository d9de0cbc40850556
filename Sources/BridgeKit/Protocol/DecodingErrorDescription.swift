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
            what = "expected a value of type \(type)"
        case .valueNotFound(let type, let c):
            context = c
            what = "expected a value of type \(type) but found null or nothing"
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
        path = Self.path(context.codingPath)
        message = path.isEmpty ? "Invalid \(subject): \(what)." : "Invalid \(subject) at \(path): \(what)."
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
