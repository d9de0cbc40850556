// bridgebench: measures BridgeKit against the bare engine and the bare codec, side by side in one
// run, and prints a table of ratios. See docs/performance.md and `scripts/bench`.
import Foundation

let settings: BenchSettings
do {
    settings = try BenchSettings.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if case .usage(let text) = error { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    exit(2)
}

#if WebKitGTK
import BridgeKitGTK

do {
    let status = try GLibMainLoop.shared.runUntilComplete {
        await BenchRun(settings: settings).run()
    }
    exit(status)
} catch {
    FileHandle.standardError.write(
        Data("bridgebench: \(error) (no display? run under xvfb-run -a, or use scripts/bench)\n".utf8))
    exit(2)
}
#else
// The main thread only waits (not `dispatchMain()`, which valgrind cannot run); the run exits.
let forever = DispatchSemaphore(value: 0)
Task.detached {
    exit(await BenchRun(settings: settings).run())
}
forever.wait()
#endif
