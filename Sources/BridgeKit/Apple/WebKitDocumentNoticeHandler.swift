#if canImport(WebKit)
import WebKit

/// Receives the document notices of ``WebBridgeDocumentNotice`` (`js/webbridge-document.js`) in a
/// content world of their own, and starts a new page generation for each one from the main frame
/// (``BridgeRouter/pageDidCommitNavigation()``): how a `WKWebView` adapter that is not the
/// navigation delegate learns that a new document committed
/// (``WebViewBridge/NavigationSignal/documentNotice``).
///
/// The world (``contentWorld``, `WKContentWorld.world(name:)`) runs only the notice script: page
/// scripts, which live in `.page` or the bridge's own world, cannot reach this handler, so a page
/// cannot forge a notice and end the calls of documents that are still there (a cross-origin
/// widget's among them). The body names the document (``DocumentNoticeBody``); the scripts the
/// router binds to it are evaluated in the same world (``WebViewBridge``'s channel), where the
/// notice's `__webbridgeDeliver` hands them to that document only.
///
/// Ownership: the controller retains this handler; it holds the bridge's ``PageGenerations``
/// (which holds the router weakly) and the web view weakly.
/// Thread: main actor (WebKit calls `userContentController(_:didReceive:)` on the main thread).
@MainActor
final class WebKitDocumentNoticeHandler: NSObject, WKScriptMessageHandler {
    /// The handler's name, as `js/webbridge-document.js` posts to it.
    static let name = WebBridgeDocumentNotice.handlerName
    /// The content world of the notice script and this handler.
    static var contentWorld: WKContentWorld { WKContentWorld.world(name: "BridgeKitDocumentNotice") }

    private weak var generations: PageGenerations?
    private weak var webView: WKWebView?

    /// Creates a handler for the bridge's page generations and `webView` (both held weakly).
    init(generations: PageGenerations, webView: WKWebView) {
        self.generations = generations
        self.webView = webView
        super.init()
    }

    /// A notice from a main-frame document of the attached web view starts a new page
    /// generation; subframes' and other web views' (sharing the controller) are ignored.
    func userContentController(_ userContentController: WKUserContentController, didReceive message: WKScriptMessage) {
        generations?.documentNotice(
            isMainFrame: message.frameInfo.isMainFrame,
            isFromAttachedWebView: message.webView === webView, body: message.body as? String)
    }

    /// Installs the handler and the notice script (main frame, document start) in
    /// ``contentWorld`` of `controller`.
    func install(in controller: WKUserContentController) -> WKUserScript {
        controller.add(self, contentWorld: Self.contentWorld, name: Self.name)
        let script = WKUserScript(
            source: WebBridgeDocumentNotice.source, injectionTime: .atDocumentStart,
            forMainFrameOnly: true, in: Self.contentWorld)
        controller.addUserScript(script)
        return script
    }

    /// Removes the handler from `controller` (the script is removed with the bridge's others).
    func uninstall(from controller: WKUserContentController) {
        controller.removeScriptMessageHandler(forName: Self.name, contentWorld: Self.contentWorld)
    }
}
#endif
