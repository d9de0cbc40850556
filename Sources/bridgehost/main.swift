// bridgehost: loads a page in a headless WebKitGTK web view with BridgeKit's stock tasks and
// prints the bridge traffic as JSON lines. See `bridgehost --help`.
import Foundation

let parsed: HostOptions
do {
    parsed = try HostOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    let isHelp = if case .help = error { true } else { false }
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(isHelp ? 0 : 2)
}

#if WebKitGTK
import BridgeKitGTK

Headless.reexecUnderXvfbIfNeeded()
let options = parsed
do {
    let status = try GLibMainLoop.shared.runUntilComplete {
        try await HostRun(options: options).run()
    }
    exit(status)
} catch {
    FileHandle.standardError.write(Data("bridgehost: \(error)\n".utf8))
    exit(2)
}
#else
FileHandle.standardError.write(Data("bridgehost: built without the WebKitGTK trait; build with `swift build --traits WebKitGTK`\n".utf8))
exit(2)
#endif
