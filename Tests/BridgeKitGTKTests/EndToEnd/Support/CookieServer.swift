#if WebKitGTK
import Foundation

/// Runs `cookie_server.py` (Python standard library, 127.0.0.1 only) for the cookie end-to-end
/// tests: login, Set-Cookie, redirect, logout and foreign-domain paths, and pages that echo the
/// Cookie header the server received. See the script for the paths.
///
/// The server ends when ``stop()`` closes its stdin or terminates it, and by itself when the
/// test process dies (its stdin closes).
final class CookieServer {
    let port: Int
    private let process: Process
    private let input: Pipe

    /// "http://127.0.0.1:<port>".
    var origin: String { "http://127.0.0.1:\(port)" }

    /// Starts the server and waits for it to print its port.
    /// - Throws: ``E2EError/unexpectedValue(_:)`` when Python is missing or the server does not start.
    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "cookie_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Reads until the first line; EOF (the script failed) ends the loop.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count >= 2, words[0] == "PORT", let port = Int(words[1]) else {
            process.terminate()
            throw E2EError.unexpectedValue("cookie server did not start: \(text)")
        }
        self.port = port
        self.process = process
        self.input = input
    }

    /// Stops the server (closes its stdin, then terminates the process this object started).
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
#endif
