#if canImport(WebKit)
public import Foundation
public import WebKit

/// The byte transport on Apple platforms (issue 26): a `WKURLSchemeHandler` for
/// `webbridge-binary:` that hands each `WKURLSchemeTask` to a ``BinarySchemeDriver`` (the logic,
/// tested on Linux) over ``BinaryTransfers``.
///
/// Register it before the web view is created:
/// `configuration.setURLSchemeHandler(handler, forURLScheme: BinaryTransfers.scheme)`.
/// `WKURLSchemeHandler` is main-actor (`WK_SWIFT_UI_ACTOR`), so this handler is too;
/// `WKURLSchemeTask` is not isolated and not `Sendable`, and is answered only from the main actor,
/// where WebKit handed it over. WebKit raises an exception when a task is answered after
/// `webView(_:stop:)`, which the driver never does.
/// The request body is `URLRequest.httpBody` (the shim sends an `ArrayBuffer`, never a `Blob`).
/// A download's chunks go to WebKit within the web view's flow control (`DeliveryGates`, shared
/// with `WebKitAssetSchemeHandler`): at most 8 MiB ahead of what its web process took.
public final class WebKitBinarySchemeHandler: NSObject, WKURLSchemeHandler {
    private let driver: BinarySchemeDriver
    /// The tasks being answered, by the identity of WebKit's task; a task leaves when it is
    /// finished, failed or stopped (WebKit calls `webView(_:stop:)` only for a task it stops, so
    /// a finished task kept here would keep its request, an upload part's body, for the life of
    /// the handler).
    private var tasks: [ObjectIdentifier: (task: WebKitSchemeTask, view: ObjectIdentifier)] = [:]

    /// Creates the handler for `transfers`.
    public init(transfers: BinaryTransfers) {
        driver = BinarySchemeDriver(transfers: transfers)
    }

    /// Starts a request.
    public func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {
        let key = ObjectIdentifier(urlSchemeTask)
        let task = WebKitSchemeTask(urlSchemeTask) { [weak self] in self?.remove(key) }
        tasks[key] = (task, ObjectIdentifier(webView))
        driver.start(task, gate: DeliveryGates.shared.open(for: webView))
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
