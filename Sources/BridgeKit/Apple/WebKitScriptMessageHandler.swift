#if canImport(WebKit)
import Foundation
import WebKit

/// The object BridgeKit registers with a `WKUserContentController`: a
/// `WKScriptMessageHandlerWithReply` (iOS 14 / macOS 11; BridgeKit's minimum is iOS 15 /
/// macOS 12, so no plain-`WKScriptMessageHandler` fallback is needed) that forwards every
/// message to a ``MessageHandlerProxy``.
///
/// Ownership: the controller retains this handler strongly; it retains the proxy; the proxy
/// holds the router **weakly** (field case R23), so nothing here keeps a screen alive.
///
/// Per message:
/// - the sender comes from the engine, never from the body: `message.frameInfo.securityOrigin`
///   (`protocol`, `host`, `port`) and `message.frameInfo.isMainFrame`
///   (``MessageSource/init(frameProtocol:host:port:isMainFrame:)``, Linux-tested). That is the
///   document's security origin; an opaque one has an empty protocol and host and becomes no
///   origin, refused by every policy unless it sets ``AccessPolicy/allowsOpaqueOrigins``;
/// - the body becomes ``MessageBody/init(foundationObject:)`` (a posted string stays a string);
/// - WebKit's `replyHandler` becomes a ``ReplyHandler`` that carries final replies
///   (``ScriptMessageDelivery``): a main-frame call's final reply goes back through it (one
///   WebKit round trip per call, as on WebKitGTK); the router answers it exactly once, with
///   `nil` (`undefined`, an acknowledgement) or the JSON text of a native-to-page message (the
///   shim hands a non-empty string to `WebBridge._receive`). It never rejects the promise.
///   WebKit's block runs on the main actor (``MainActorHop``);
/// - a message whose `webView` is not the attached one (another web view sharing the content
///   controller) is answered with `unavailable` and not routed.
///
/// Only the completion-handler form of the WithReply method is implemented (the `async` form
/// maps to the same Objective-C selector; implementing both is an error).
@MainActor
final class WebKitScriptMessageHandler: NSObject, WKScriptMessageHandlerWithReply {
    /// The proxy messages go to.
    let proxy: MessageHandlerProxy
    /// The registry that installed this handler: it names the attached web view.
    private weak var registry: WebKitMessageHandlerRegistry?
    /// Whether the registry had one; without a registry every message is routed.
    private let checksWebView: Bool

    /// Creates a handler forwarding to `proxy`, for the web view `registry` is attached to.
    init(proxy: MessageHandlerProxy, registry: WebKitMessageHandlerRegistry? = nil) {
        self.proxy = proxy
        self.registry = registry
        self.checksWebView = registry != nil
        super.init()
    }

    /// Receives one `postMessage` from a page (WebKit calls this on the main thread).
    func userContentController(
        _ userContentController: WKUserContentController,
        didReceive message: WKScriptMessage,
        replyHandler: @escaping @MainActor @Sendable (Any?, String?) -> Void
    ) {
        let frame = message.frameInfo
        let origin = frame.securityOrigin
        let source = MessageSource(
            frameProtocol: origin.protocol, host: origin.host, port: origin.port,
            isMainFrame: frame.isMainFrame)
        let body = MessageBody(foundationObject: message.body)
        let attached = registry?.attachedWebView
        let isFromAttachedWebView = !checksWebView || attached == nil || message.webView === attached
        // `String?` converts to `Any?` keeping `nil` as `nil` (not a boxed nil), which WebKit
        // turns into `undefined`.
        ScriptMessageDelivery.deliver(
            body, from: source, isFromAttachedWebView: isFromAttachedWebView,
            to: proxy, reply: { json in replyHandler(json, nil) })
    }
}
#endif
