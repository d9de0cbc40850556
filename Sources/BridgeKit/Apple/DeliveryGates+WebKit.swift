#if canImport(WebKit)
import WebKit

extension DeliveryGates {
    /// The most bytes of a web view's bodies handed to WebKit and not yet taken by its web
    /// process.
    static let budget = 8 << 20

    /// The gate of `webView` for one more task (``close(for:)`` with `ObjectIdentifier(webView)`
    /// when it ends). Its barrier evaluates `0` in a content world of its own, which WebKit sends
    /// to the web process behind the chunks already sent; a failed evaluation (the view or the
    /// web process is gone) counts as answered.
    func open(for webView: WKWebView) -> DeliveryGate {
        open(for: ObjectIdentifier(webView), budget: Self.budget) {
            let evaluator = WebKitScriptEvaluator(webView: webView, contentWorld: .world(name: "bridgekit-delivery"))
            return { try? await evaluator.evaluate("0") }
        }
    }
}
#endif
