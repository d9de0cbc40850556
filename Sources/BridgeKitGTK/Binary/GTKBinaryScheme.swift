#if WebKitGTK
import BridgeKit
import CWebKitGTK
import Foundation
import Synchronization

/// The byte transport on WebKitGTK (issue 26): the custom URL scheme `webbridge-binary:`
/// registered on a view's web context (`webkit_web_context_register_uri_scheme`), marked CORS
/// enabled and secure (so an `https` page may `fetch` it), whose requests go to the
/// `BinaryTransfers` of the view they came from. Everything that decides is in `BinaryTransfers`;
/// this only moves requests and bytes between WebKit and it.
///
/// Threads: the scheme callback runs on the GTK thread; `BinaryTransfers/handle(_:)` runs in a
/// Swift task; the response is finished on the GTK thread. Request bodies are read on threads of
/// their own (``GTKInputStreamBody``); response bodies are written from the GTK main loop within
/// the view's flow control (``GTKResponsePump``, ``GTKDeliveryGate``).
enum GTKBinaryScheme {
    /// Web views (their `WebKitWebView` pointer's bits) and the transfers their requests go to.
    private static let views = Mutex<[UInt: WeakTransfers]>([:])

    private final class WeakTransfers: Sendable {
        private let reference: Mutex<Weak>
        private struct Weak { weak var transfers: BinaryTransfers? }
        init(_ transfers: BinaryTransfers) { reference = Mutex(Weak(transfers: transfers)) }
        var transfers: BinaryTransfers? { reference.withLock { $0.transfers } }
    }

    /// The `g_object_set_data` key marking a web context that has the scheme.
    private static let contextMark = "bridgekit-binary-scheme"

    /// Sends `webView`'s byte requests to `transfers`, registering the scheme on its web context
    /// the first time (GTK thread).
    static func install(_ transfers: BinaryTransfers, on webView: GTKWebView) {
        let core = webView.core
        let view = GPointer(core.webView)
        let context = GPointer(core.context)
        views.withLock { $0[UInt(bitPattern: view.raw)] = WeakTransfers(transfers) }
        transfers.noteServed()
        GTKThread.perform {
            let object: UnsafeMutablePointer<GObject> = gCast(context.raw)
            guard g_object_get_data(object, contextMark) == nil else { return }
            g_object_set_data(object, contextMark, UnsafeMutableRawPointer(bitPattern: 1))
            webkit_web_context_register_uri_scheme(context.pointer, BinaryTransfers.scheme, schemeCallback, nil, nil)
            let security = webkit_web_context_get_security_manager(context.pointer)
            webkit_security_manager_register_uri_scheme_as_cors_enabled(security, BinaryTransfers.scheme)
            webkit_security_manager_register_uri_scheme_as_secure(security, BinaryTransfers.scheme)
        }
    }

    /// Stops sending `webView`'s byte requests anywhere (they are answered 404).
    static func uninstall(_ webView: GTKWebView) {
        let view = GPointer(webView.core.webView)
        _ = views.withLock { $0.removeValue(forKey: UInt(bitPattern: view.raw)) }
    }

    static func transfers(for view: UnsafeMutablePointer<WebKitWebView>?) -> BinaryTransfers? {
        guard let view else { return nil }
        return views.withLock { $0[UInt(bitPattern: UnsafeMutableRawPointer(view))] }?.transfers
    }

    /// `WebKitURISchemeRequestCallback` (GTK thread).
    private static let schemeCallback:
        @convention(c) (UnsafeMutablePointer<WebKitURISchemeRequest>?, UnsafeMutableRawPointer?) -> Void = {
            request, _ in
            guard let request else { return }
            GTKBinaryScheme.handle(GPointer(request))
        }

    /// Reads one request and answers it (GTK thread).
    private static func handle(_ request: GPointer<WebKitURISchemeRequest>) {
        let raw = request.pointer
        let method = gString(webkit_uri_scheme_request_get_http_method(raw)) ?? "GET"
        let uri = gString(webkit_uri_scheme_request_get_uri(raw)) ?? ""
        var origin: String?
        if let headers = webkit_uri_scheme_request_get_http_headers(raw) {
            origin = gString(soup_message_headers_get_one(headers, "Origin"))
        }
        var body: (any BinaryBodyReader)?
        if method == "POST" || method == "PUT" {
            // Opened only once the transfers accepted the request (see GTKInputStreamBody).
            body = GTKInputStreamBody(request: request)
        }
        guard let transfers = transfers(for: webkit_uri_scheme_request_get_web_view(raw)) else {
            body?.cancel()
            GTKSchemeResponse.finishLater(
                request, status: 404, headers: ["Content-Type": "application/json"],
                data: Data("{\"code\":\"unavailable\"}".utf8))
            return
        }
        g_object_ref(request.raw)
        let binaryRequest = BinaryRequest(method: method, url: uri, origin: origin, body: body)
        Task.detached {
            let response = await transfers.handle(binaryRequest)
            if response.status == 200, response.contentLength != 0, method == "GET" {
                GTKThread.post {
                    let view = webkit_uri_scheme_request_get_web_view(request.pointer)
                    GTKResponsePump.start(
                        request, status: response.status, headers: response.headers,
                        length: response.contentLength.map(Int64.init), body: response.body,
                        chunkBytes: transfers.limits.chunkBytes, gate: view.map(GTKDeliveryGate.of))
                    g_object_unref(request.raw)
                }
            } else {
                var data = Data()
                while let chunk = try? await response.body.read(maxBytes: 64 * 1024) { data.append(chunk) }
                let bytes = data
                GTKThread.post {
                    GTKSchemeResponse.finish(request, status: response.status, headers: response.headers, data: bytes)
                    g_object_unref(request.raw)
                }
            }
        }
    }
}
#endif
