#if WebKitGTK
import BridgeKit
import Foundation

/// What `js/webbridge-relay.js` posts from the isolated script world: the sender's origin and
/// frame as the relay read them (`self.origin`, the document's security origin, and
/// `window.top === window`) and the page's
/// message text. Page scripts cannot reach that world, so they cannot forge the first two.
///
/// Two forms (docs/protocol.md, "Relay"), and a third for a body over the host's limit
/// (`[origin, frame, head, length]`, ``oversizedLength``): a body under 65,536 UTF-16 code units comes as one
/// string, `"main <origin>\n<body>"` or `"sub <origin>\n<body>"` (three JavaScriptCore calls to
/// read, against a dozen for an array, and one value for WebKit to serialize); a longer one as the
/// array `[origin, "main" | "sub", body]`, whose body arrives as its own string
/// (``GTKScriptMessage/utf8Elements``) and is handed to the router in the engine's own UTF-8
/// buffer. Neither form escapes the body into JSON text.
struct RelayEnvelope {
    let origin: String
    let mainFrame: Bool
    let body: MessageBody
    /// For a body the relay refused to post because it is longer than the host's limit: its
    /// length in UTF-16 code units (``body`` is then only its head).
    var oversizedLength: Int?

    /// The sender, as BridgeKit's policy sees it. `"null"` (opaque origins) becomes `nil`.
    /// - Parameter origins: where origins already parsed are kept.
    @MainActor
    func source(using origins: SecurityOriginCache) -> MessageSource {
        MessageSource(origin: origins.origin(serialized: origin), isMainFrame: mainFrame)
    }

    /// Reads what the relay posted, in either form; `nil` for anything else (the handler lives in
    /// a world only the relay can post from, so that means a bug, never page input).
    /// The body as text, for logs (``GTKBridgeMessage``).
    var bodyText: String {
        switch body {
        case .string(let text): text
        case .json(let data): String(decoding: data, as: UTF8.self)
        case .absent: ""
        }
    }

    static func parse(_ message: GTKScriptMessage) -> RelayEnvelope? {
        if let elements = message.utf8Elements { return parse(elements) }
        return message.isString ? parse(oneString: message.bodyJSONText) : nil
    }

    /// Reads the one-string form: `"main "` or `"sub "`, the origin, a line feed, the body.
    /// - Parameter text: the posted string.
    static func parse(oneString text: String) -> RelayEnvelope? {
        let utf8 = text.utf8
        guard let lineEnd = utf8.firstIndex(of: UInt8(ascii: "\n")),
            let space = utf8[..<lineEnd].firstIndex(of: UInt8(ascii: " "))
        else {
            return nil
        }
        let mainFrame: Bool
        switch Substring(utf8[..<space]) {
        case "main": mainFrame = true
        case "sub": mainFrame = false
        default: return nil
        }
        let origin = String(Substring(utf8[utf8.index(after: space)..<lineEnd]))
        let body = Substring(utf8[utf8.index(after: lineEnd)...])
        // `.string` is how the router reads a body it was given as text, whatever it starts with.
        return RelayEnvelope(origin: origin, mainFrame: mainFrame, body: .string(String(body)))
    }

    /// Reads the array form, `[origin, frame, body]`, or the oversized form
    /// `[origin, frame, head, length]`; `nil` for anything else.
    /// - Parameter elements: the posted array's elements as UTF-8 (``GTKScriptMessage/utf8Elements``).
    static func parse(_ elements: [Data?]) -> RelayEnvelope? {
        guard elements.count == 3 || elements.count == 4, let origin = elements[0], let frame = elements[1],
            let body = elements[2]
        else { return nil }
        var oversizedLength: Int?
        if elements.count == 4 {
            guard let length = elements[3].flatMap({ Int(String(decoding: $0, as: UTF8.self)) }), length >= 0 else {
                return nil
            }
            oversizedLength = length
        }
        let mainFrame: Bool
        switch frame {
        case Data("main".utf8): mainFrame = true
        case Data("sub".utf8): mainFrame = false
        default: return nil
        }
        if let oversizedLength {
            return RelayEnvelope(
                origin: String(decoding: origin, as: UTF8.self), mainFrame: mainFrame,
                body: .string(String(decoding: body, as: UTF8.self)), oversizedLength: oversizedLength)
        }
        return RelayEnvelope(
            origin: String(decoding: origin, as: UTF8.self), mainFrame: mainFrame, body: messageBody(body))
    }

    /// The body for the router, routed exactly as `.string` of its decoded text would be.
    ///
    /// `.json` hands the router the bytes themselves, and routes them like `.string` unless the
    /// text starts with a JSON string (`.json` unwraps one) or is empty or blank, and as long as
    /// they are valid UTF-8 (decoding to a `String` would replace invalid sequences with U+FFFD).
    /// JavaScriptCore writes valid UTF-8 (a string with a lone surrogate, which the shim's
    /// `JSON.stringify` never leaves in a message, comes out empty); should an engine write a
    /// surrogate's 3-byte form instead, that body takes the `String` (one `memchr` pass).
    static func messageBody(_ utf8: Data) -> MessageBody {
        let routesAsJSON = utf8.withUnsafeBytes { raw -> Bool in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let first = bytes.first(where: { $0 > 0x20 }), first != UInt8(ascii: "\"") else { return false }
            return !hasLoneSurrogate(bytes)
        }
        return routesAsJSON ? .json(utf8) : .string(String(decoding: utf8, as: UTF8.self))
    }

    /// Whether `bytes` holds the 3-byte form of a UTF-16 surrogate (`ED` followed by `A0`–`BF`).
    static func hasLoneSurrogate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var from = 0
        while from < bytes.count, let found = memchr(base + from, 0xED, bytes.count - from) {
            let index = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
            if index + 1 < bytes.count, bytes[index + 1] >= 0xA0, bytes[index + 1] <= 0xBF { return true }
            from = index + 1
        }
        return false
    }
}
#endif
