#if canImport(WebKit)
public import Foundation
public import WebKit

/// Serves an ``AssetFolder`` to WebKit on Apple platforms: a `WKURLSchemeHandler` for the
/// folder's scheme, so a page of several files that the app ships (`index.html`, scripts, styles,
/// images) loads with the origin `app://bundle` instead of `file://`, whose origin is opaque and
/// refused by the bridge. The Apple counterpart of WebKitGTK's `GTKAssetURIScheme`, with the same
/// rules (``AssetFolder``: what is served, and what is refused with 400, 403, 404 or 405).
///
/// ```swift
/// let folder = Bundle.main.resourceURL?.appendingPathComponent("web") ?? URL(fileURLWithPath: "/")
/// let assets = try AssetFolder(directory: folder)
/// let configuration = WKWebViewConfiguration()
/// try WebKitAssetSchemeHandler(folder: assets).install(in: configuration)
/// let webView = WKWebView(frame: .zero, configuration: configuration)
/// let policy = AccessPolicy.origins([OriginPattern(origin: assets.origin)])
/// let router = BridgeRouter(configuration: BridgeConfiguration(policy: policy))
/// let bridge = try WebViewBridge.attach(router: router, to: webView)
/// if let start = URL(string: assets.uri(for: "index.html")) { webView.load(URLRequest(url: start)) }
/// ```
///
/// Install it before the web view is created (``install(in:)``: WebKit copies the configuration).
/// The answer logic is ``AssetSchemeDriver`` (tested on Linux): `GET` only; a file is streamed in
/// chunks of 64 KiB read off the main thread, at most 8 MiB of a web view's files ahead of what its
/// web process took (`DeliveryGate`), with `Content-Type`, `Content-Length` and
/// `X-Content-Type-Options: nosniff`; refusals get their status and a one-line text. Files are
/// served only while the web view's main document (`WKWebView.url`) is of the folder's origin;
/// a request whose `Origin` header names another origin is 403.
///
/// `WKURLSchemeHandler` is main-actor (`WK_SWIFT_UI_ACTOR`), so this handler is too;
/// `WKURLSchemeTask` is not isolated and not `Sendable`, and is answered only from the main actor,
/// where WebKit handed it over. WebKit raises an exception when a task is answered after
/// `webView(_:stop:)`, which the driver never does: after a stop nothing more is sent, and the
/// file is closed.
public final class WebKitAssetSchemeHandler: NSObject, WKURLSchemeHandler {
    /// The folder served.
    public let folder: AssetFolder
    private let driver: AssetSchemeDriver
    /// The tasks being answered, by the identity of WebKit's task, with their web view's identity.
    private var tasks: [ObjectIdentifier: (task: WebKitSchemeTask, view: ObjectIdentifier)] = [:]

    /// Creates the handler for `folder`.
    /// - Parameter folder: the folder, scheme and host to serve.
    public init(folder: AssetFolder) {
        self.folder = folder
        driver = AssetSchemeDriver(folder: folder)
    }

    /// Registers this handler for the folder's scheme on `configuration`
    /// (`setURLSchemeHandler(_:forURLScheme:)`); call it before the web view is created with it.
    /// The configuration retains the handler.
    /// - Parameter configuration: the configuration of the web view to create.
    /// - Throws: ``AssetFolderError/schemeInUse(_:)`` when the configuration already has a handler
    ///   for the scheme or WebKit handles it itself, where WebKit would raise an exception.
    public func install(in configuration: WKWebViewConfiguration) throws(AssetFolderError) {
        guard configuration.urlSchemeHandler(forURLScheme: folder.scheme) == nil,
            !WKWebView.handlesURLScheme(folder.scheme)
        else { throw .schemeInUse(folder.scheme) }
        configuration.setURLSchemeHandler(self, forURLScheme: folder.scheme)
    }

    /// Starts a request.
    public func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {
        let key = ObjectIdentifier(urlSchemeTask)
        let view = ObjectIdentifier(webView)
        let task = WebKitSchemeTask(urlSchemeTask) { [weak self] in self?.remove(key) }
        tasks[key] = (task, view)
        driver.start(task, viewURL: webView.url?.absoluteString, gate: DeliveryGates.shared.open(for: webView))
    }

    /// Stops a request: nothing more is sent to it.
    public func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask) {
        guard let task = remove(ObjectIdentifier(urlSchemeTask)) else { return }
        driver.stop(task)
    }

    /// Forgets a task and closes its hold on its web view's gate.
    @discardableResult
    private func remove(_ key: ObjectIdentifier) -> WebKitSchemeTask? {
        guard let (task, view) = tasks.removeValue(forKey: key) else { return nil }
        DeliveryGates.shared.close(for: view)
        return task
    }
}
#endif
