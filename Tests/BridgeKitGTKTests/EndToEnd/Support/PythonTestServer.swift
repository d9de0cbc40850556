#if WebKitGTK
import Foundation

/// A test server written in Python (standard library only, on loopback) beside this file: the
/// process, the port it printed and its stdin, shared by ``CookieServer``, ``ReplaceServer`` and
/// attack 14's `ManyHostServer`.
///
/// A server script prints `PORT <n>` as its first line once it listens, reads commands from its
/// stdin one line at a time, and ends when its stdin closes: so also by itself when the test
/// process dies.
final class PythonTestServer {
    let port: Int
    private let process: Process
    private let input: Pipe

    /// "http://127.0.0.1:<port>".
    var origin: String { "http://127.0.0.1:\(port)" }

    /// Starts `script` (a file beside this one) with `arguments` and waits for it to print its port.
    /// - Throws: ``E2EError/unexpectedValue(_:)`` when Python is missing or the server does not start.
    init(script: String, arguments: [String] = []) throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(script).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", path] + arguments
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
            throw E2EError.unexpectedValue("\(script) did not start: \(text)")
        }
        self.port = port
        self.process = process
        self.input = input
    }

    /// Writes one command line to the server's stdin.
    func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    /// Stops the server (closes its stdin, then terminates the process this object started).
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
#endif
