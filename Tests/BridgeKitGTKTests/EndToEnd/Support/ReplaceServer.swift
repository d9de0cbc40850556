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

    let port: Int
    private let process: Process
    private let input: Pipe
    private let configFile: URL

    /// "http://127.0.0.1:<port>".
    var origin: String { "http://127.0.0.1:\(port)" }

    init(routes: [String: Route] = [:], multipart: [String: [String]] = [:]) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "replace_server.py")
        let configFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "replace-server-\(UUID().uuidString).json")
        try JSONEncoder().encode(Config(routes: routes, multipart: multipart)).write(to: configFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path, configFile.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count >= 2, words[0] == "PORT", let port = Int(words[1]) else {
            process.terminate()
            throw E2EError.unexpectedValue("replace server did not start: \(text)")
        }
        self.port = port
        self.process = process
        self.input = input
        self.configFile = configFile
    }

    /// Sends the next part of the (one) multipart response in progress.
    func nextPart() {
        input.fileHandleForWriting.write(Data("next\n".utf8))
    }

    /// Stops the server (closes its stdin, then terminates the process this object started).
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: configFile)
    }
}
#endif
