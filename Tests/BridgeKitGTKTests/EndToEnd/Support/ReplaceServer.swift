#if WebKitGTK
import Foundation

/// Runs `replace_server.py` (Python standard library, 127.0.0.1 only) for the page-replacement
/// attack tests: canned routes (any content type and headers) and `multipart/x-mixed-replace`
/// responses whose parts after the first are sent one at a time by ``nextPart()``.
final class ReplaceServer {
    /// One canned response.
    struct Route: Encodable {
        var status = 200
        var type = "text/html; charset=utf-8"
        var body = ""
        var headers: [[String]] = []
    }

    private struct Config: Encodable {
        var routes: [String: Route]
        var multipart: [String: [String]]
    }

    private let server: PythonTestServer
    private let configFile: URL

    var port: Int { server.port }

    /// "http://127.0.0.1:<port>".
    var origin: String { server.origin }

    /// Starts the server with `routes` (path → canned response) and `multipart` (path → the
    /// HTML parts of a `multipart/x-mixed-replace` response) and waits for it to print its port.
    /// - Throws: ``E2EError/unexpectedValue(_:)`` when Python is missing or the server does not start.
    init(routes: [String: Route] = [:], multipart: [String: [String]] = [:]) throws {
        let configFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "replace-server-\(UUID().uuidString).json")
        try JSONEncoder().encode(Config(routes: routes, multipart: multipart)).write(to: configFile)
        do {
            server = try PythonTestServer(script: "replace_server.py", arguments: [configFile.path])
        } catch {
            try? FileManager.default.removeItem(at: configFile)
            throw error
        }
        self.configFile = configFile
    }

    /// Sends the next part of the (one) multipart response in progress.
    func nextPart() { server.send("next") }

    /// Stops the server (closes its stdin, then terminates the process this object started).
    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: configFile)
    }
}
#endif
