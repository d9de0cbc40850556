public import Foundation

/// A page-side function that a BridgeKit script may call.
///
/// The set is closed: every value is a fixed function expression defined by BridgeKit and
/// matched by `js/webbridge.js`. No part of a function is ever taken from page input, so a
/// page cannot make the app evaluate code of its choosing.
public struct PageFunction: Sendable, Hashable {
    /// The JavaScript function expression, for example `(function(m){...})`.
    public let source: String

    /// Hands one protocol message (reply, progress, event, native-to-page call) to the shim's
    /// `WebBridge._receive`. Does nothing when the shim is absent (the page changed or never
    /// loaded it), so a late script never throws in a page that does not know BridgeKit.
    public static let receive = PageFunction(
        source: "(function(m){var b=window.WebBridge;if(b&&typeof b._receive==='function'){b._receive(m);}})"
    )

    /// Hands one protocol message to the page of the document `id` only: evaluated in the world
    /// of the document notice (`js/webbridge-document.js`), whose `__webbridgeDeliver` passes it
    /// on (as the shim's `webbridge:message` event) when `id` is its own document's, and drops
    /// it otherwise. `nil` unless `id` is a document id (``isDocumentID(_:)``), so nothing but
    /// 32 hexadecimal digits is ever written into the source.
    public static func deliver(toDocument id: String) -> PageFunction? {
        guard isDocumentID(id) else { return nil }
        return PageFunction(
            source: "(function(m){var f=window.__webbridgeDeliver;if(typeof f==='function'){f(\"\(id)\",m);}})")
    }

    /// Whether `id` is a document id as the document notice makes them: 32 lowercase
    /// hexadecimal digits (128 random bits).
    public static func isDocumentID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Assigns each string of an array to `document.cookie`, one cookie per assignment, in
    /// whatever document it runs. A document-start user script runs in every main-frame document
    /// the web view shows, other sites' included: use ``assignCookiesOnPage`` there.
    public static let assignCookies = PageFunction(
        source: "(function(c){c.forEach(function(s){document.cookie=s;});})"
    )

    /// Assigns each string of `cookies` to `document.cookie`, one cookie per assignment, only
    /// in a document whose URL has the host `host` (lowercase; an IPv6 address without brackets)
    /// and the scheme `scheme` (`"http"` or `"https"`), or `https` for an `http` plan (a start
    /// page redirected to `https`: an `http` plan's cookies are not Secure, and the store gives
    /// them to that page too); elsewhere it does nothing. Takes
    /// `{"scheme": …, "host": …, "cookies": […]}`. What `DocumentCookiePlan`'s script calls,
    /// so that the app's cookies never reach another site the view goes to (attack 14). It
    /// reads `location` at document start, before any script of the page has run.
    public static let assignCookiesOnPage = PageFunction(
        source:
            "(function(p){var l=location,h=l.hostname;if(h.charAt(0)==='['){h=h.slice(1,-1);}"
            + "var s=l.protocol===p.scheme+':'||(p.scheme==='http'&&l.protocol==='https:');"
            + "if(!s||h!==p.host){return;}"
            + "p.cookies.forEach(function(s){document.cookie=s;});})"
    )
}

/// Builds every script BridgeKit evaluates in a page.
///
/// There is exactly one way to put data into a script: ``build(calling:json:)``. The payload is
/// embedded as a JSON *expression* in argument position (never inside quotes or a template
/// literal), after ``JavaScriptEmbedding`` has escaped what JSON allows but a script or an
/// HTML `<script>` element does not.
public enum PageScript {
    /// Builds `<function>(<payload>);void 0`.
    ///
    /// - Parameters:
    ///   - function: the fixed page-side function to call.
    ///   - json: the payload as UTF-8 JSON text (any JSON value, including a top-level scalar).
    ///     The text is trusted to be valid JSON (it comes from `JSONEncoder`).
    /// - Returns: script text whose completion value is `undefined`, so every engine accepts
    ///   the result (WebKit reports an error for results it cannot serialise).
    public static func build(calling function: PageFunction, json: Data) -> String {
        build(calling: function, jsonParts: [json])
    }

    /// Builds the script for a JSON text given in pieces that join to it, each starting and
    /// ending outside any string or number (``OutboundJSON``). Each piece is escaped straight
    /// into the one script buffer, so the payload is copied once. A large payload with few
    /// non-ASCII characters is written in pure ASCII
    /// (``JavaScriptEmbedding/prefersASCII(messageBytes:nonASCIIBytes:)``).
    static func build(calling function: PageFunction, jsonParts: [Data]) -> String {
        let payloadBytes = jsonParts.reduce(0) { $0 + $1.count }
        let asciiOnly = JavaScriptEmbedding.prefersASCII(messageBytes: payloadBytes, nonASCIIIn: jsonParts)
        var script = [UInt8]()
        script.reserveCapacity(function.source.utf8.count + payloadBytes + payloadBytes / 32 + 16)
        script.append(contentsOf: function.source.utf8)
        script.append(UInt8(ascii: "("))
        for part in jsonParts {
            part.withUnsafeBytes { raw in
                JavaScriptEmbedding.appendExpression(
                    fromJSON: raw.bindMemory(to: UInt8.self), to: &script,
                    asciiOnly: asciiOnly)
            }
        }
        script.append(contentsOf: Self.ending)
        return String(decoding: script, as: UTF8.self)
    }

    /// `);void 0`: the end of every script.
    static let ending: [UInt8] = Array(");void 0".utf8)

    /// `script`, a script calling ``PageFunction/receive``, calling `function` instead with the
    /// same payload: how a message already written for the page is bound to one document
    /// (``PageFunction/deliver(toDocument:)``). `nil` when `script` does not call `receive`.
    static func rebinding(_ script: String, to function: PageFunction) -> String? {
        let receive = PageFunction.receive.source
        guard script.utf8.starts(with: receive.utf8) else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(script.utf8.count - receive.utf8.count + function.source.utf8.count)
        out.append(contentsOf: function.source.utf8)
        out.append(contentsOf: script.utf8.dropFirst(receive.utf8.count))
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes `value` with ``BridgeJSON/encode(_:)`` and builds the script calling `function`.
    ///
    /// - Throws: `EncodingError` when the value cannot be encoded (for example `Double.nan`).
    public static func build(calling function: PageFunction, encoding value: some Encodable) throws -> String {
        try build(calling: function, json: BridgeJSON.encode(value))
    }
}
