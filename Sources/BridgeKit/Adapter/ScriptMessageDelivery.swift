import Foundation

/// The logic of a WebKit with-reply message handler (`WKScriptMessageHandlerWithReply` on Apple
/// platforms), platform-neutral so that it is unit-tested on Linux; the Apple glue only reads
/// the message's facts from WebKit and hands WebKit's reply block in.
///
/// - **One round trip per call.** The router gets a ``ReplyHandler`` that carries final replies
///   (``ReplyHandler/carriesFinalReplies``): a main-frame call's final reply goes back through
///   the message's own reply (the shim's `postMessage` promise resolves with it and hands it to
///   `WebBridge._receive`), as on WebKitGTK, instead of an acknowledgement now and a reply script
///   through `evaluateJavaScript` later. Progress, events and native-to-page calls still go by
///   script; the router waits for each progress script before it answers, so the reply never
///   overtakes them.
/// - **One bridge per web view.** Web views created from one configuration share its
///   `WKUserContentController`, so a web view without a bridge of its own reaches the handler of
///   another's. A message whose web view is not the attached one is not routed: it is answered
///   with `unavailable` (its promise settles; nothing reaches the router, so no reply script goes
///   into the wrong web view).
/// - WebKit's reply block must run on the main actor: the answer runs there at once when the
///   router answers on the main thread, otherwise after a hop (``MainActorHop``).
package enum ScriptMessageDelivery {
    /// The message of the `unavailable` answer to a message from another web view.
    package static let otherWebViewMessage =
        "This web view has no bridge of its own (it shares its content controller with a web view that has one)."

    /// Delivers one message to `proxy`.
    /// - Parameters:
    ///   - body: the message body.
    ///   - source: the sending frame, from the engine.
    ///   - isFromAttachedWebView: whether the message's web view is the one the bridge is attached to.
    ///   - proxy: the router's proxy.
    ///   - reply: WebKit's reply block, adapted: JSON text or `nil` (`undefined`); called at most
    ///     once, on the main actor.
    package static func deliver(
        _ body: MessageBody, from source: MessageSource, isFromAttachedWebView: Bool,
        to proxy: MessageHandlerProxy,
        reply: @escaping @MainActor @Sendable (_ json: String?) -> Void
    ) {
        guard isFromAttachedWebView else {
            let answer = unavailableReply(for: body, message: otherWebViewMessage)
            MainActorHop.run { reply(answer) }
            return
        }
        proxy.receive(
            body, from: source,
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in
                MainActorHop.run { reply(json) }
            })
    }

    /// The JSON text of an `unavailable` reply to the call in `body`, or `nil` (an
    /// acknowledgement) when the body names no call id.
    static func unavailableReply(for body: MessageBody, message: String) -> String? {
        MessageHandlerProxy.unavailableReply(for: body, message: message)
    }
}
