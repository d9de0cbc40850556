#if WebKitGTK
import BridgeKit
import Foundation

/// Runs one of the package's executables (bridgehost, the window example) built next to the test
/// bundle, as a child process with the test's display, and collects its output.
final class ToolProcess: @unchecked Sendable {
    /// What a finished run gave.
    struct Outcome: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Standard output's lines parsed as JSON objects (lines that are not are skipped).
        var jsonLines: [JSONValue] {
            stdout.split(separator: "\n").compactMap { try? BridgeJSON.decode(JSONValue.self, from: Data($0.utf8)) }
        }
    }

    /// The folder of the test bundle, where `swift build --build-tests` puts the executables too.
    static var buildFolder: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()

    /// Starts `executable` (a product name) with `arguments`.
    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = Self.buildFolder.appendingPathComponent(executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.outData.append(data) }
        }
        err.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.errData.append(data) }
        }
        try process.run()
    }

    /// Standard output so far.
    var stdoutSoFar: String { lock.withLock { String(decoding: outData, as: UTF8.self) } }

    /// Waits for the process to end (polling every 50 ms); ends it with SIGKILL after `limit` seconds.
    func finish(within limit: Double = 45) async -> Outcome {
        let deadline = Date().addingTimeInterval(limit)
        while process.isRunning, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        // Let the readability handlers take the last bytes.
        try? await Task.sleep(for: .milliseconds(100))
        out.fileHandleForReading.readabilityHandler = nil
        err.fileHandleForReading.readabilityHandler = nil
        let rest = (try? out.fileHandleForReading.readToEnd()) ?? nil
        let restErr = (try? err.fileHandleForReading.readToEnd()) ?? nil
        return lock.withLock {
            if let rest { outData.append(rest) }
            if let restErr { errData.append(restErr) }
            return Outcome(
                status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                stderr: String(decoding: errData, as: UTF8.self))
        }
    }

    /// Runs `executable` to the end.
    static func run(_ executable: String, _ arguments: [String], within limit: Double = 45) async throws -> Outcome {
        try await ToolProcess(executable, arguments).finish(within: limit)
    }

    /// Waits until standard output contains `text`, for `limit` seconds at most.
    func waitForOutput(_ text: String, within limit: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            if stdoutSoFar.contains(text) { return true }
            if !process.isRunning { return stdoutSoFar.contains(text) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}

/// A temporary folder with files, removed by ``remove()``.
struct TemporaryFolder {
    let url: URL

    init(_ files: [String: String]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bridgehost-test-\(UUID().uuidString)")
        for (name, text) in files {
            let file = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
#endif
