import Foundation

/// Runs JavaScript in node, the real JS engine available on the test machine, so that
/// "eval-level" checks see what a page would see. Shared by the test targets (BridgeKitTests,
/// BridgeCookiesTests), hence `package`.
package enum NodeJS {
    package struct Failure: Error, CustomStringConvertible {
        package let status: Int32
        package let stderr: String
        package var description: String { "node exited with \(status): \(stderr)" }
    }

    /// Runs `program` with node and returns its standard output.
    /// - Parameter stdin: text given to the program on standard input.
    package static func run(_ program: String, stdin: String = "") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bridgekit-node-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let programURL = directory.appendingPathComponent("program.js")
        let inputURL = directory.appendingPathComponent("input.txt")
        try Data(program.utf8).write(to: programURL)
        try Data(stdin.utf8).write(to: inputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["node", programURL.path, inputURL.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(status: process.terminationStatus, stderr: String(decoding: errData, as: UTF8.self))
        }
        return String(decoding: outData, as: UTF8.self)
    }

    /// Evaluates a BridgeKit page script as a classic script in a context whose
    /// `window.WebBridge._receive` records its argument, and returns what it received, as JSON
    /// text written by the engine's own `JSON.stringify`.
    ///
    /// `window.probe` is a getter that throws, so any accidental template interpolation fails.
    package static func receivedMessages(evaluating script: String) throws -> String {
        let program = #"""
            const fs = require('fs');
            const vm = require('vm');
            const script = fs.readFileSync(process.argv[2], 'utf8');
            const received = [];
            const window = { WebBridge: { _receive(m) { received.push(m); } } };
            Object.defineProperty(window, 'probe', { get() { throw new Error('interpolated'); } });
            const context = vm.createContext({ window, JSON });
            const completion = vm.runInContext(script, context);
            if (completion !== undefined) { throw new Error('completion value is not undefined'); }
            process.stdout.write(JSON.stringify(received));
            """#
        return try run(program, stdin: script)
    }
}
