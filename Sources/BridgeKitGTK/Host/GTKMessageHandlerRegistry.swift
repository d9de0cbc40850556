#if WebKitGTK
public import BridgeKit
import Foundation

/// BridgeKit's `ScriptMessageHandlerRegistry` over a ``GTKWebView``: installs each handler in the
/// isolated script world ``world`` with a reply path, and unwraps the relay's envelope into a
/// `MessageSource` the page could not forge.
///
/// Thread: main actor (GTK's thread).
@MainActor
public final class GTKMessageHandlerRegistry: ScriptMessageHandlerRegistry {
    /// The isolated script world BridgeKit's handler and relay live in.
    public let world: String
    private weak var webView: GTKWebView?
    /// Sees every message before the router does, and every reply that travels back with a
    /// message (``WebKitGTKBridgeHost/onMessage``).
    var tap: (@Sendable (GTKBridgeMessage) -> Void)?

    /// Creates a registry for `webView`, held weakly.
    /// - Parameters:
    ///   - webView: the view whose content manager gets the handlers.
    ///   - world: the script world name; default `"bridgekit"`.
    public init(webView: GTKWebView, world: String = "bridgekit") {
        self.webView = webView
        self.world = world
    }

    public func addScriptMessageHandler(_ proxy: MessageHandlerProxy, name: String) {
        // A failure here means the name is taken on this view, which BridgeAttachment already rules out.
        let origins = SecurityOriginCache()
        let tap = self.tap
        // A large body from a sender the router does not admit is read only as far as its head
        // (GTK thread; `JSCValueText.unadmittedHead(of:admits:)`).
        let admitsSender: @Sendable (String, Bool) -> Bool = { origin, isMainFrame in
            proxy.admitsSender(MessageSource(origin: SecurityOrigin(origin), isMainFrame: isMainFrame))
        }
        try? webView?.registerScriptMessageHandler(
            name: name, world: world, withReply: true, mainFrameOnly: false, relayAdmitsSender: admitsSender
        ) { message in
            Self.forward(message, to: proxy, origins: origins, tap: tap)
        }
    }

    public func removeScriptMessageHandler(name: String) {
        webView?.unregisterScriptMessageHandler(name: name)
    }

    /// Hands one relay message to the proxy, with a reply path back to the sending frame.
    /// - Parameters:
    ///   - message: what the relay posted (either form of ``RelayEnvelope``).
    ///   - proxy: the weak proxy in front of the router.
    ///   - origins: the origins this handler parsed before.
    static func forward(
        _ message: GTKScriptMessage, to proxy: MessageHandlerProxy, origins: SecurityOriginCache,
        tap: (@Sendable (GTKBridgeMessage) -> Void)? = nil
    ) {
        guard let envelope = RelayEnvelope.parse(message) else {
            _ = message.reply?.returnValue("")
            return
        }
        // The relay hands a non-empty reply to the shim as `webbridge:message`, so final replies
        // travel with the message's own reply (one IPC message instead of an empty answer plus
        // an evaluated script). `returnValue` is thread-safe and answers at once on the GTK
        // thread: no task hop per call.
        if let tap { tap(GTKBridgeMessage(direction: .inbound, json: envelope.bodyText, origin: envelope.origin)) }
        let replyHandler = message.reply.map { reply in
            ReplyHandler(carriesFinalReplies: true) { json in
                if let tap, let json, !json.isEmpty { tap(GTKBridgeMessage(direction: .outbound, json: json)) }
                _ = reply.returnValue(json ?? "")
            }
        }
        if let length = envelope.oversizedLength, case .string(let head) = envelope.body {
            // The relay posted only the head of a body over the limit (WebBridgeRelay.settingsScript),
            // or the app read only the head of a body from a sender no policy admitted
            // (`JSCValueText.unadmittedHead`).
            return proxy.receiveHead(
                head, byteCount: length, reason: message.readOnlyHead ? .senderNotAdmitted : .overLimit,
                from: envelope.source(using: origins), replyHandler: replyHandler)
        }
        proxy.receive(envelope.body, from: envelope.source(using: origins), replyHandler: replyHandler)
    }
}

/// Carries a main-actor object through a `@Sendable` closure that only touches it on the main actor.
final class MainActorBox<Value: AnyObject>: @unchecked Sendable {
    // Only read inside `@MainActor` code (see `GTKWebCookieStore`).
    let value: Value
    init(_ value: Value) { self.value = value }
}

// MARK: The relay's envelope

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

/// The security origins the relay sent last, parsed once each.
///
/// Every call carries its frame's serialized origin (`self.origin`, read by the relay), and
/// the calls of one page carry the same few. ``SecurityOrigin/init(_:)`` parses through
/// `URLComponents`, which cost about as much as the router's whole handling of a small call
/// (measured with `perf` on bridgebench's 100 B round trips); a hit here is one string comparison.
/// Keeps at most ``capacity`` origins, the most recently added first; an origin that no longer
/// fits is parsed again when it comes back.
///
/// Thread: main actor (GTK's thread), where the registry's handler runs.
@MainActor
final class SecurityOriginCache {
    /// The most origins kept (a page with more frames of distinct origins than this still works).
    static let capacity = 8

    private var entries: [(serialized: String, origin: SecurityOrigin?)] = []

    /// The origin `serialized` names, as ``SecurityOrigin/init(_:)`` parses it: `nil` for
    /// `"null"` and for text that is not an origin.
    func origin(serialized: String) -> SecurityOrigin? {
        for entry in entries where entry.serialized == serialized {
            return entry.origin
        }
        let origin = SecurityOrigin(serialized)
        if entries.count == Self.capacity { entries.removeLast() }
        entries.insert((serialized, origin), at: 0)
        return origin
    }
}
#endif
