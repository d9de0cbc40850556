#if WebKitGTK
import CWebKitGTK
import Foundation

/// Finishes a request of a custom URI scheme (`webkit_uri_scheme_request_finish_with_response`):
/// the one way both of BridgeKitGTK's schemes answer, the byte transport's (``GTKBinaryScheme``)
/// and the app's files' (``GTKAssetURIScheme``). GTK thread.
enum GTKSchemeResponse {
    /// Finishes `request` with `stream` as its body; takes the stream's reference.
    ///
    /// `Content-Type` goes into the response's headers as well as its content type: WebKitGTK
    /// builds the response from the headers when there are any, so a type given only to
    /// `webkit_uri_scheme_response_set_content_type` is lost (WebKitGTK 2.50; with `nosniff`, a
    /// script without a type does not run).
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - headers: the response's headers, `Content-Type` among them.
    ///   - length: the body's length in bytes, or -1 when unknown.
    static func finish(
        _ request: GPointer<WebKitURISchemeRequest>, status: Int, headers: [String: String],
        stream: UnsafeMutablePointer<GInputStream>?, length: Int64
    ) {
        let response = webkit_uri_scheme_response_new(stream, gint64(length))
        webkit_uri_scheme_response_set_status(response, guint(status), nil)
        if let type = headers["Content-Type"] { webkit_uri_scheme_response_set_content_type(response, type) }
        let soupHeaders = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE)
        for (name, value) in headers { soup_message_headers_append(soupHeaders, name, value) }
        webkit_uri_scheme_response_set_http_headers(response, soupHeaders)
        webkit_uri_scheme_request_finish_with_response(request.pointer, response)
        if let response { g_object_unref(UnsafeMutableRawPointer(response)) }
        if let stream { g_object_unref(UnsafeMutableRawPointer(stream)) }
    }

    /// Finishes `request` with a small in-memory body in a later turn of the GTK main loop: for
    /// answers decided inside WebKit's request callback. Finished inside it, a flood of refusals
    /// (a page's thousand `<img>` of another origin's view) left WebKitGTK 2.50 unable to load a
    /// later view's navigation (found by an attack on the asset scheme, `AssetSchemeAttack`).
    static func finishLater(
        _ request: GPointer<WebKitURISchemeRequest>, status: Int, headers: [String: String], data: Data
    ) {
        g_object_ref(request.raw)
        GTKThread.post {
            finish(request, status: status, headers: headers, data: data)
            g_object_unref(request.raw)
        }
    }

    /// Finishes `request` with a small in-memory body (copied).
    static func finish(_ request: GPointer<WebKitURISchemeRequest>, status: Int, headers: [String: String], data: Data)
    {
        let copy = data.withUnsafeBytes { g_memdup2($0.baseAddress, gsize(data.count)) }
        let stream = g_memory_input_stream_new_from_data(copy, gssize(data.count), g_free)
        finish(request, status: status, headers: headers, stream: stream, length: Int64(data.count))
    }
}
#endif
