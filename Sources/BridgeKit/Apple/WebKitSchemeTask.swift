#if canImport(WebKit)
import Foundation
import WebKit

/// A `WKURLSchemeTask` as the drivers of BridgeKit's URL schemes see it: a
/// ``BinarySchemeTask`` (``WebKitBinarySchemeHandler``) and an ``AssetSchemeTask``
/// (``WebKitAssetSchemeHandler``). Main actor, where WebKit hands scheme tasks over and where they
/// are answered. `ended` runs once the task is finished or failed, so that its handler lets go of
/// it (WebKit calls `webView(_:stop:)` only for a task it stops).
final class WebKitSchemeTask: BinarySchemeTask, AssetSchemeTask {
    let task: any WKURLSchemeTask
    private let ended: () -> Void

    init(_ task: any WKURLSchemeTask, ended: @escaping () -> Void) {
        self.task = task
        self.ended = ended
    }

    var method: String { task.request.httpMethod ?? "GET" }
    var url: String { task.request.url?.absoluteString ?? "" }
    var origin: String? { task.request.value(forHTTPHeaderField: "Origin") }
    var body: Data? { task.request.httpBody }

    func respond(status: Int, headers: [String: String]) {
        // A head is always sent (WebKit refuses a body without one); a task has a URL.
        let url = task.request.url ?? URL(fileURLWithPath: "/")
        let response =
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
            ?? URLResponse(
                url: url, mimeType: headers["Content-Type"], expectedContentLength: -1, textEncodingName: nil)
        task.didReceive(response)
    }

    func send(_ data: Data) { task.didReceive(data) }

    func finish() {
        task.didFinish()
        ended()
    }

    func fail(_ error: any Error) {
        task.didFailWithError(error)
        ended()
    }
}
#endif
