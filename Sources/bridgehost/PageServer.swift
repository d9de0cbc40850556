#if WebKitGTK
import BridgeKitGTK
import CWebKitGTK
import Foundation

/// Serves one folder on `http://127.0.0.1:<port>/` (loopback only, a free port), so a local page
/// loads with a real origin and its relative scripts, styles and images load too.
///
/// GET and HEAD only; paths that leave the folder (`..`, symbolic links out of it) get 404;
/// nothing is cached (`Cache-Control: no-store`), so a reload shows the files as they are now.
/// Built on libsoup 3's `SoupServer`, served by the GTK thread's GLib loop.
final class PageServer: @unchecked Sendable {
    /// The folder served (resolved, no symbolic links).
    let root: URL
    /// The port it listens on.
    let port: Int
    /// Called on the GTK thread for every request that failed (status >= 400): path, status.
    let onFailure: @Sendable (String, Int) -> Void
    // Created, used and freed on the GTK thread only.
    private var server: UnsafeMutablePointer<SoupServer>?

    /// `http://127.0.0.1:<port>`.
    var origin: String { "http://127.0.0.1:\(port)" }

    /// Starts serving `folder`.
    /// - Throws: ``ServerError`` when the server cannot listen.
    @MainActor
    init(folder: URL, onFailure: @escaping @Sendable (String, Int) -> Void) throws {
        root = folder.resolvingSymlinksInPath().standardizedFileURL
        self.onFailure = onFailure
        let started = try GLibMainLoop.shared.performOnGTKThread { () -> StartResult in
            guard let object = g_object_new_with_properties(soup_server_get_type(), 0, nil, nil) else {
                return StartResult(message: "cannot create a SoupServer")
            }
            let server = UnsafeMutableRawPointer(object).assumingMemoryBound(to: SoupServer.self)
            var error: UnsafeMutablePointer<GError>?
            guard soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error) != 0 else {
                let message = error.map { String(cString: $0.pointee.message) } ?? "listen failed"
                g_error_free(error)
                g_object_unref(object)
                return StartResult(message: message)
            }
            var port = 0
            let uris = soup_server_get_uris(server)
            if let first = uris?.pointee.data { port = Int(g_uri_get_port(OpaquePointer(first))) }
            g_slist_free_full(uris) { if let uri = $0 { g_uri_unref(OpaquePointer(uri)) } }
            return StartResult(server: ServerPointer(server), port: port, message: "")
        }
        guard let server = started.server, started.port > 0 else { throw ServerError.cannotStart(started.message) }
        self.server = server.pointer
        self.port = started.port
        let me = ServerPointer(raw: Unmanaged.passUnretained(self).toOpaque())
        try GLibMainLoop.shared.performOnGTKThread {
            soup_server_add_handler(server.pointer, nil, handleRequest, me.raw, nil)
        }
    }

    /// Stops listening (call before dropping the server).
    @MainActor
    func stop() {
        guard let server else { return }
        self.server = nil
        let handle = ServerPointer(server)
        _ = try? GLibMainLoop.shared.performOnGTKThread {
            soup_server_remove_handler(handle.pointer, nil)
            soup_server_disconnect(handle.pointer)
            g_object_unref(UnsafeMutableRawPointer(handle.pointer))
        }
    }

    /// The URL of `file` (inside the folder) on this server.
    func url(of file: URL) -> URL? {
        let path = file.resolvingSymlinksInPath().standardizedFileURL.path
        guard path.hasPrefix(root.path + "/") else { return nil }
        let relative = String(path.dropFirst(root.path.count + 1))
        let escaped = relative.split(separator: "/").map {
            $0.addingPercentEncoding(
                withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? String($0)
        }.joined(separator: "/")
        return URL(string: "\(origin)/\(escaped)")
    }

    /// The file for a request path, or nil when it is outside the folder or not a readable file.
    func file(for requestPath: String) -> URL? {
        let decoded = requestPath.removingPercentEncoding ?? requestPath
        let components = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.contains(where: { $0 == ".." || $0.contains("\0") }) else { return nil }
        var candidate = components.reduce(root) { $0.appendingPathComponent(String($1)) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
            candidate = candidate.appendingPathComponent("index.html")
        }
        let resolved = candidate.resolvingSymlinksInPath().standardizedFileURL
        guard resolved.path.hasPrefix(root.path + "/"), FileManager.default.isReadableFile(atPath: resolved.path) else {
            return nil
        }
        return resolved
    }

    /// The `Content-Type` for a file name.
    static func contentType(of file: URL) -> String {
        switch file.pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json", "map": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "ico": "image/x-icon"
        case "wasm": "application/wasm"
        case "woff2": "font/woff2"
        case "woff": "font/woff"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    /// Answers one request (GTK thread).
    fileprivate func respond(to message: OpaquePointer, path: String) {
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? "GET"
        let headers = soup_server_message_get_response_headers(message)
        soup_message_headers_append(headers, "Cache-Control", "no-store")
        guard method == "GET" || method == "HEAD" else {
            soup_server_message_set_status(message, 405, nil)
            onFailure(path, 405)
            return
        }
        guard let file = file(for: path), let body = try? Data(contentsOf: file) else {
            let text = "<!doctype html><title>404</title><p>bridgehost: no file for \(path) in the page's folder"
            soup_server_message_set_status(message, 404, nil)
            Self.setBody(message, Data(text.utf8), type: "text/html; charset=utf-8")
            onFailure(path, 404)
            return
        }
        soup_server_message_set_status(message, 200, nil)
        Self.setBody(message, body, type: Self.contentType(of: file))
    }

    private static func setBody(_ message: OpaquePointer, _ body: Data, type: String) {
        body.withUnsafeBytes { raw in
            let chars = raw.bindMemory(to: CChar.self)
            soup_server_message_set_response(message, type, SOUP_MEMORY_COPY, chars.baseAddress, gsize(chars.count))
        }
    }

    enum ServerError: Error, CustomStringConvertible {
        case cannotStart(String)
        var description: String {
            switch self {
            case .cannotStart(let message): "cannot serve the page's folder on 127.0.0.1: \(message)"
            }
        }
    }
}

/// What starting the server gave (GTK thread to main actor).
private struct StartResult: Sendable {
    var server: ServerPointer?
    var port = 0
    var message: String
}

/// A pointer carried to or from the GTK thread.
private struct ServerPointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    var pointer: UnsafeMutablePointer<SoupServer> { raw.assumingMemoryBound(to: SoupServer.self) }
    init(_ pointer: UnsafeMutablePointer<SoupServer>) { raw = UnsafeMutableRawPointer(pointer) }
    init(raw: UnsafeMutableRawPointer) { self.raw = raw }
}

/// `SoupServerCallback` (GTK thread).
private let handleRequest: SoupServerCallback = { _, message, path, _, userData in
    guard let message, let userData else { return }
    Unmanaged<PageServer>.fromOpaque(userData).takeUnretainedValue()
        .respond(to: message, path: path.map { String(cString: $0) } ?? "/")
}
#endif
