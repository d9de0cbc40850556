#if WebKitGTK
import CWebKitGTK
import Foundation

/// The bare side of the binary-values part: a custom URL scheme handler (`bench-bare:`) on a
/// ``PeerWebView``'s own web context, with no bridge: a `POST` body is read whole in chunks of
/// 1 MiB on a worker thread and answered with its byte count; `GET …/down/N` answers N zero
/// bytes from memory. Registered CORS enabled and secure, as BridgeKit's `webbridge-binary:` is.
///
/// Threads: the scheme callback and the responses run on the GTK thread (the main thread; the
/// main queue is drained by the GLib loop); request bodies are read on a global queue.
enum BareBinaryScheme {
    static let scheme = "bench-bare"

    /// Registers the scheme on `view`'s web context (GTK thread).
    @MainActor
    static func install(on view: UnsafeMutablePointer<WebKitWebView>) {
        guard let context = webkit_web_view_get_context(view) else { return }
        webkit_web_context_register_uri_scheme(context, scheme, callback, nil, nil)
        let security = webkit_web_context_get_security_manager(context)
        webkit_security_manager_register_uri_scheme_as_cors_enabled(security, scheme)
        webkit_security_manager_register_uri_scheme_as_secure(security, scheme)
    }

    /// `WebKitURISchemeRequestCallback` (GTK thread).
    private static let callback:
        @convention(c) (UnsafeMutablePointer<WebKitURISchemeRequest>?, UnsafeMutableRawPointer?) -> Void = {
            request, _ in
            guard let request else { return }
            let method = webkit_uri_scheme_request_get_http_method(request).map { String(cString: $0) } ?? "GET"
            let uri = webkit_uri_scheme_request_get_uri(request).map { String(cString: $0) } ?? ""
            guard method == "POST" else {
                // At most 1 GiB (the byte transport's default limit): g_malloc0 aborts when it cannot allocate.
                let count = min(max(0, Int(uri.split(separator: "/").last ?? "") ?? 0), 1 << 30)
                let buffer = g_malloc0(gsize(max(count, 1)))
                respond(
                    request, stream: g_memory_input_stream_new_from_data(buffer, gssize(count), g_free), length: count)
                return
            }
            _ = g_object_ref(UnsafeMutableRawPointer(request))
            let requestBits = UInt(bitPattern: request)
            let streamBits = UInt(bitPattern: webkit_uri_scheme_request_get_http_body(request))
            DispatchQueue.global().async {
                var total = 0
                if let stream = UnsafeMutablePointer<GInputStream>(bitPattern: streamBits) {
                    let chunk = 1 << 20
                    let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
                    while true {
                        let read = g_input_stream_read(stream, buffer, gsize(chunk), nil, nil)
                        if read <= 0 { break }
                        total += Int(read)
                    }
                    buffer.deallocate()
                    g_object_unref(UnsafeMutableRawPointer(stream))
                }
                DispatchQueue.main.async {
                    guard let request = UnsafeMutablePointer<WebKitURISchemeRequest>(bitPattern: requestBits) else {
                        return
                    }
                    let text = Array(String(total).utf8)
                    let copy = text.withUnsafeBytes { g_memdup2($0.baseAddress, gsize(text.count)) }
                    respond(
                        request, stream: g_memory_input_stream_new_from_data(copy, gssize(text.count), g_free),
                        length: text.count)
                    g_object_unref(UnsafeMutableRawPointer(request))
                }
            }
        }

    /// Finishes `request` with status 200, any origin allowed, and `stream` (taken) as its body.
    private static func respond(
        _ request: UnsafeMutablePointer<WebKitURISchemeRequest>, stream: UnsafeMutablePointer<GInputStream>?,
        length: Int
    ) {
        let response = webkit_uri_scheme_response_new(stream, gint64(length))
        webkit_uri_scheme_response_set_status(response, 200, nil)
        let headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE)
        soup_message_headers_append(headers, "Access-Control-Allow-Origin", "*")
        webkit_uri_scheme_response_set_http_headers(response, headers)
        webkit_uri_scheme_request_finish_with_response(request, response)
        if let response { g_object_unref(UnsafeMutableRawPointer(response)) }
        if let stream { g_object_unref(UnsafeMutableRawPointer(stream)) }
    }
}
#endif
