// bridgehost: loads a page in WebKitGTK (headless, or in a window with --window) with BridgeKit's
// stock tasks and mocked ones, and logs the bridge traffic. See `bridgehost --help`.
import Foundation

#if canImport(Glibc)
import Glibc
#endif

let parsed: HostOptions
do {
    parsed = try HostOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    let isHelp = if case .help = error { true } else { false }
    if isHelp {
        FileHandle.standardOutput.write(Data("\(error)\n".utf8))
        exit(0)
    }
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}

#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks

let options = parsed
let style: TrafficPrinter.Style =
    switch options.format {
    case .json: .json
    case .human: .human
    case .automatic: isatty(STDOUT_FILENO) != 0 ? .human : .json
    }

if options.listTasks {
    exit(TaskListing.print(options: options, style: style))
}
Headless.reexecUnderXvfbIfNeeded()
do {
    let status = try GLibMainLoop.shared.runUntilComplete {
        try await HostRun(options: options, printer: TrafficPrinter(style: style, payloadLimit: options.payloadLimit))
            .run()
    }
    exit(status)
} catch {
    FileHandle.standardError.write(Data("bridgehost: \(error)\n".utf8))
    exit(2)
}
#else
FileHandle.standardError.write(
    Data("bridgehost: built without the WebKitGTK trait; build with `swift build --traits WebKitGTK`\n".utf8))
exit(2)
#endif
