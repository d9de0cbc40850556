#if WebKitGTK
public import BridgeKit

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
        try? webView?.registerScriptMessageHandler(name: name, world: world, withReply: true) { message in
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
            // The relay posted only the head of a body over the limit (WebBridgeRelay.settingsScript).
            return proxy.refuseOversizedBody(
                head: head, byteCount: length, from: envelope.source(using: origins),
                replyHandler: replyHandler)
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
#endif
