#if WebKitGTK
import CWebKitGTK

/// A tiny HTTP server on 127.0.0.1 (random port) for the WebKitGTK tests, built on libsoup 3's
/// `SoupServer`. It runs on the GLib default main context, so it answers while a test iterates GLib
/// (``GLibMainLoop/iterate(until:timeout:)`` or an awaiting web view call). Loopback only.
@MainActor
final class LoopbackServer {
    /// One canned response.
    struct Response {
        var status: Int = 200
        var contentType = "text/html; charset=utf-8"
        var headers: [(String, String)] = []
        var body = ""
    }

    /// One request as the server saw it.
    struct Request {
        let path: String
        let userAgent: String?
        let cookie: String?
    }

    private let server: UnsafeMutablePointer<SoupServer>
    private(set) var port = 0
    private(set) var requests: [Request] = []
    /// Responses by path (without query); unknown paths get 404.
    var routes: [String: Response] = [:]

    /// "http://127.0.0.1:<port>" (the origin of every page it serves).
    var origin: String { "http://127.0.0.1:\(port)" }

    init() throws {
        guard let object = g_object_new_with_properties(soup_server_get_type(), 0, nil, nil) else {
            throw ServerError.cannotStart("g_object_new failed")
        }
        server = UnsafeMutableRawPointer(object).assumingMemoryBound(to: SoupServer.self)
        soup_server_add_handler(server, nil, handleRequest, Unmanaged.passUnretained(self).toOpaque(), nil)
        var error: UnsafeMutablePointer<GError>?
        guard soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "listen failed"
            g_error_free(error)
            throw ServerError.cannotStart(message)
        }
        let uris = soup_server_get_uris(server)
        if let first = uris?.pointee.data {
            port = Int(g_uri_get_port(OpaquePointer(first)))
        }
        g_slist_free_full(uris) { if let uri = $0 { g_uri_unref(OpaquePointer(uri)) } }
    }

    /// Stops listening and frees the server (call before dropping it).
    func stop() {
        soup_server_remove_handler(server, nil)
        soup_server_disconnect(server)
        g_object_unref(UnsafeMutableRawPointer(server))
    }

    fileprivate func respond(to message: OpaquePointer, path: String) {
        let requestHeaders = soup_server_message_get_request_headers(message)
        requests.append(
            Request(
                path: path,
                userAgent: soup_message_headers_get_one(requestHeaders, "User-Agent").map { String(cString: $0) },
                cookie: soup_message_headers_get_one(requestHeaders, "Cookie").map { String(cString: $0) }))
        let response = routes[path] ?? Response(status: 404, body: "<title>not found</title>")
        soup_server_message_set_status(message, guint(response.status), nil)
        let responseHeaders = soup_server_message_get_response_headers(message)
        for (name, value) in response.headers {
            soup_message_headers_append(responseHeaders, name, value)
        }
        var body = response.body
        body.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                soup_server_message_set_response(
                    message, response.contentType, SOUP_MEMORY_COPY, chars.baseAddress, gsize(chars.count))
            }
        }
    }

    enum ServerError: Error {
        case cannotStart(String)
    }
}

/// `SoupServerCallback`: `void (*)(SoupServer *, SoupServerMessage *, const char *path, GHashTable *, gpointer)`.
private let handleRequest: SoupServerCallback = { _, message, path, _, userData in
        guard let message, let userData else { return }
        let arguments = TestCallbackArguments((message, path.map { String(cString: $0) } ?? "/", userData))
        MainActor.assumeIsolated {
            let (message, path, userData) = arguments.value
            Unmanaged<LoopbackServer>.fromOpaque(userData).takeUnretainedValue().respond(to: message, path: path)
        }
    }

/// Carries C callback arguments into `MainActor.assumeIsolated` (GLib calls on the GTK thread).
struct TestCallbackArguments<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
#endif
