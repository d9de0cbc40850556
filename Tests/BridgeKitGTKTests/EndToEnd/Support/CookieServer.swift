#if WebKitGTK
import Foundation

/// Runs `cookie_server.py` (Python standard library, 127.0.0.1 only) for the cookie end-to-end
/// tests: login, Set-Cookie, redirect, logout and foreign-domain paths, and pages that echo the
/// Cookie header the server received. See the script for the paths.
///
/// The server ends when ``stop()`` closes its stdin or terminates it, and by itself when the
/// test process dies (its stdin closes).
final class CookieServer {
    private let server: PythonTestServer

    var port: Int { server.port }

    /// "http://127.0.0.1:<port>".
    var origin: String { server.origin }

    /// Starts the server and waits for it to print its port.
    /// - Throws: ``E2EError/unexpectedValue(_:)`` when Python is missing or the server does not start.
    init() throws {
        server = try PythonTestServer(script: "cookie_server.py")
    }

    /// Stops the server.
    func stop() { server.stop() }
}
#endif
