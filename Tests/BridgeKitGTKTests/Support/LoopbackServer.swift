#if WebKitGTK
import BridgeKitGTK
import CWebKitGTK
import Synchronization

/// A tiny HTTP server on 127.0.0.1 (random port) for the WebKitGTK tests, built on libsoup 3's
/// `SoupServer`. It lives on the GTK thread (its sockets are served by the GTK thread's GLib loop),
/// so it answers while WebKit runs; the routes and the request log are shared through a lock.
/// Loopback only.
final class LoopbackServer: @unchecked Sendable {
    /// One canned response.
    struct Response: Sendable {
        var status: Int = 200
        var contentType = "text/html; charset=utf-8"
        var headers: [(String, String)] = []
        var body = ""
    }

    /// One request as the server saw it.
    struct Request: Sendable {
        let path: String
        let userAgent: String?
        let cookie: String?
    }

    private struct State {
        var routes: [String: Response] = [:]
        var requests: [Request] = []
    }

    // Created, used and freed on the GTK thread only.
    private var server: UnsafeMutablePointer<SoupServer>?
    private let state = Mutex(State())
    /// The port it listens on.
    let port: Int

    /// "http://127.0.0.1:<port>" (the origin of every page it serves).
    var origin: String { "http://127.0.0.1:\(port)" }

    /// Responses by path (without query); unknown paths get 404.
    var routes: [String: Response] {
        get { state.withLock { $0.routes } }
        set { state.withLock { $0.routes = newValue } }
    }

    /// The requests received so far, in order.
    var requests: [Request] { state.withLock { $0.requests } }

    @MainActor
    init() throws {
        let box = PortBox()
        try GLibMainLoop.shared.performOnGTKThread { box.start() }
        guard let server = box.server, box.port > 0 else { throw ServerError.cannotStart(box.message) }
        self.server = server.pointer
        self.port = box.port
        let userData = UserData(Unmanaged.passUnretained(self).toOpaque())
        let handle = server
        try GLibMainLoop.shared.performOnGTKThread {
            soup_server_add_handler(handle.pointer, nil, handleRequest, userData.pointer, nil)
        }
    }

    /// Stops listening and frees the server (call before dropping it).
    @MainActor
    func stop() {
        guard let server else { return }
        self.server = nil
        let handle = ServerHandle(server)
        _ = try? GLibMainLoop.shared.performOnGTKThread {
            soup_server_remove_handler(handle.pointer, nil)
            soup_server_disconnect(handle.pointer)
            g_object_unref(UnsafeMutableRawPointer(handle.pointer))
        }
    }

    /// Answers one request (GTK thread).
    fileprivate func respond(to message: OpaquePointer, path: String) {
        let requestHeaders = soup_server_message_get_request_headers(message)
        let request = Request(
            path: path,
            userAgent: soup_message_headers_get_one(requestHeaders, "User-Agent").map { String(cString: $0) },
            cookie: soup_message_headers_get_one(requestHeaders, "Cookie").map { String(cString: $0) })
        let response = state.withLock { state in
            state.requests.append(request)
            return state.routes[path] ?? Response(status: 404, body: "<title>not found</title>")
        }
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

/// A `SoupServer *` carried to the GTK thread.
private struct ServerHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<SoupServer>
    init(_ pointer: UnsafeMutablePointer<SoupServer>) { self.pointer = pointer }
}

/// The callback's user data (this server, unretained: it outlives the handler, see `stop()`).
private struct UserData: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}

/// Creates and starts the server on the GTK thread and reports the outcome.
private final class PortBox: @unchecked Sendable {
    var server: ServerHandle?
    var port = 0
    var message = "not started"

    func start() {
        guard let object = g_object_new_with_properties(soup_server_get_type(), 0, nil, nil) else { return }
        let server = UnsafeMutableRawPointer(object).assumingMemoryBound(to: SoupServer.self)
        var error: UnsafeMutablePointer<GError>?
        guard soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error) != 0 else {
            message = error.map { String(cString: $0.pointee.message) } ?? "listen failed"
            g_error_free(error)
            g_object_unref(object)
            return
        }
        let uris = soup_server_get_uris(server)
        if let first = uris?.pointee.data {
            port = Int(g_uri_get_port(OpaquePointer(first)))
        }
        g_slist_free_full(uris) { if let uri = $0 { g_uri_unref(OpaquePointer(uri)) } }
        self.server = ServerHandle(server)
    }
}

/// `SoupServerCallback` (GTK thread):
/// `void (*)(SoupServer *, SoupServerMessage *, const char *path, GHashTable *, gpointer)`.
private let handleRequest: SoupServerCallback = { _, message, path, _, userData in
    guard let message, let userData else { return }
    Unmanaged<LoopbackServer>.fromOpaque(userData).takeUnretainedValue()
        .respond(to: message, path: path.map { String(cString: $0) } ?? "/")
}
#endif
