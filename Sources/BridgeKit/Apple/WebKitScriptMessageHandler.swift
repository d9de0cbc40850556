#if canImport(WebKit)
import Foundation
import WebKit

/// The object BridgeKit registers with a `WKUserContentController`: a
/// `WKScriptMessageHandlerWithReply` (iOS 14 / macOS 11; BridgeKit's minimum is iOS 18 /
/// macOS 15, so no plain-`WKScriptMessageHandler` fallback is needed) that forwards every
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
/// - WebKit's `replyHandler` becomes a ``ReplyHandler``. The router answers it exactly once:
///   `nil` (the page's promise resolves to `undefined`, an acknowledgement) or the JSON text
///   of a native-to-page message (the shim hands a non-empty string to `WebBridge._receive`).
///   It never rejects the promise. WebKit's block must run on the main actor; when the router
///   answers from another thread the answer hops there with a `Task { @MainActor in … }`.
///
/// Only the completion-handler form of the WithReply method is implemented (the `async` form
/// maps to the same Objective-C selector; implementing both is an error).
@MainActor
final class WebKitScriptMessageHandler: NSObject, WKScriptMessageHandlerWithReply {
    /// The proxy messages go to.
    let proxy: MessageHandlerProxy

    /// Creates a handler forwarding to `proxy`.
    init(proxy: MessageHandlerProxy) {
        self.proxy = proxy
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
        let source = MessageSource(frameProtocol: origin.protocol, host: origin.host, port: origin.port,
                                   isMainFrame: frame.isMainFrame)
        let body = MessageBody(foundationObject: message.body)
        proxy.receive(body, from: source, replyHandler: ReplyHandler { json in
            Self.answer(replyHandler, with: json)
        })
    }

    /// Calls WebKit's reply block with `json` (`nil` resolves the promise to `undefined`), on the
    /// main actor: at once when already there, otherwise after a hop.
    nonisolated private static func answer(_ replyHandler: @escaping @MainActor @Sendable (Any?, String?) -> Void,
                                           with json: String?) {
        // `String?` converts to `Any?` keeping `nil` as `nil` (not a boxed nil), which WebKit
        // turns into `undefined`.
        if Thread.isMainThread {
            MainActor.assumeIsolated { replyHandler(json, nil) }
        } else {
            Task { @MainActor in replyHandler(json, nil) }
        }
    }
}
#endif
