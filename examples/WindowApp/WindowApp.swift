#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks
import Foundation

/// The example app: one window, one web view, a router with an `Echo` task and an `App.close`
/// task the page calls to close the window.
@MainActor
struct WindowApp {
    /// The origin the page is loaded with (the router accepts calls from it only).
    static let origin = "https://app.example"

    func run() async throws -> Int32 {
        // 1. The window first: a task below closes it.
        let window = try GTKWindow(title: "BridgeKit window app", width: 800, height: 600)
        window.closesOnTerminationSignals()

        // 2. The router and its tasks.
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: try .checkedOrigins([Self.origin])))
        try router.register(EchoTask())
        try router.register(ClosureTask(name: "App.close") { (_: NoOptions, _: CallContext) in
            await MainActor.run { window.requestClose() }
            return NoResult()
        })

        // 3. The web view, with the Web Inspector (right-click > Inspect Element).
        let webView = try GTKWebView(configuration: GTKWebViewConfiguration(
            applicationName: "WindowApp", applicationVersion: "1.0", developerExtrasEnabled: true))
        let host = WebKitGTKBridgeHost(router: router, webView: webView)
        try host.attach()
        host.page.onLoadEvent = { event in
            if event == .finished { print("window-app: page loaded") }
        }

        // 4. Into the window, on screen, and load.
        try window.setContent(webView)
        window.present()
        try webView.loadHTML(Self.page, baseURI: Self.origin + "/")
        print("window-app: window shown")

        // 5. Until the user (or the page, or a signal) asks to close; then close cleanly:
        //    the bridge first (pending calls settle with `unavailable`), then the window.
        await window.closeRequested()
        await host.close()
        window.close()
        print("window-app: closed cleanly")
        return 0
    }

    /// The page: a full-window colour, a greeting from native, a close button.
    static let page = """
    <!doctype html>
    <html><head><meta charset="utf-8"><title>BridgeKit window app</title>
    <style>
      html, body { margin: 0; height: 100%; }
      body { background: #1e6fd9; color: #fff; font: 20px sans-serif; display: grid; place-content: center; gap: 1em; }
      button { font: inherit; padding: .5em 1em; }
    </style></head>
    <body>
      <h1 id="greeting">Hello from the page</h1>
      <button id="close">Close</button>
      <script>
        WebBridge.call("Echo", { text: "Hello from native" }).then(function (reply) {
          document.getElementById("greeting").textContent = reply.text;
        });
        document.getElementById("close").onclick = function () { WebBridge.call("App.close", {}); };
      </script>
    </body></html>
    """
}
#endif
