#if WebKitGTK
import BridgeKit
import BridgeTasks
import Foundation

/// `--list-tasks`: the tasks a page can call in this run (stock, mocked, bridgehost's own), without
/// loading anything.
enum TaskListing {
    /// Prints the list on standard output.
    /// - Returns: the exit status (2 when the mock file cannot be used).
    static func print(options: HostOptions, style: TrafficPrinter.Style) -> Int32 {
        let mocks: MockFile?
        do {
            mocks = try options.mockFile.map { path throws(MockFile.LoadError) in try MockFile.load(path) }
        } catch {
            FileHandle.standardError.write(Data("bridgehost: \(error)\n".utf8))
            return 2
        }
        let printer = TrafficPrinter(style: style, payloadLimit: options.payloadLimit)
        let router = BridgeRouter()
        let tasks: [(name: String, origin: HostTasks.Origin, mock: MockFile.Entry?)]
        do {
            // The File tasks only need their folder when called: none is made for the listing.
            let files = HostTasks.FileTasks(
                transfers: BinaryTransfers(router: router),
                directory: FileManager.default.temporaryDirectory.appendingPathComponent("bridgehost-files"))
            tasks = try HostTasks.register(
                in: router, control: HostControl(), history: HistoryTask(), files: files, mocks: mocks,
                alertChoice: options.alertChoice, printer: printer)
        } catch {
            FileHandle.standardError.write(Data("bridgehost: \(error)\n".utf8))
            return 2
        }
        var lines: [String] = []
        let width = tasks.map(\.name.count).max() ?? 0
        for task in tasks {
            var detail = ""
            if let mock = task.mock {
                switch mock.outcome {
                case .reply(let value):
                    detail = "reply " + TrafficPrinter.truncated(TrafficPrinter.jsonText(value.summary), to: 60)
                case .error(let code, _, _): detail = "error \(code)"
                }
                if mock.delayMilliseconds > 0 { detail += ", after \(mock.delayMilliseconds) ms" }
                if !mock.progress.isEmpty { detail += ", \(mock.progress.count) progress steps" }
            }
            switch style {
            case .human:
                lines.append(
                    task.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + task.origin.rawValue
                        + (detail.isEmpty ? "" : "  (\(detail))"))
            case .json:
                var object: [String: JSONValue] = ["task": .string(task.name), "source": .string(task.origin.rawValue)]
                if !detail.isEmpty { object["mock"] = .string(detail) }
                if let data = try? BridgeJSON.encode(JSONValue.object(object)) {
                    lines.append(String(decoding: data, as: UTF8.self))
                }
            }
        }
        FileHandle.standardOutput.write(
            Data((lines.map(TrafficPrinter.terminalSafe).joined(separator: "\n") + "\n").utf8))
        return 0
    }
}
#endif
