#if WebKitGTK
import Foundation

/// The bare side of the binary-values part: ``BinaryBenchPage`` in a ``PeerWebView`` (its own
/// web context and web process, no BridgeKit) with ``BareBinaryScheme`` registered, driven like
/// ``BinaryBench``.
///
/// Thread: main actor (GTK's thread).
@MainActor
final class BareBinaryBench {
    let view: PeerWebView
    /// The web process of this view (started after the views open before it), when found.
    private(set) var webProcess: Int32?

    /// Creates the view, registers the scheme, loads the page and waits until it runs.
    static func open() async throws -> BareBinaryBench {
        let before = Set(MemoryProbe.webProcesses())
        let bench = try BareBinaryBench()
        bench.view.loadHTML(BinaryBenchPage.html, baseURI: BinaryBenchPage.origin + "/")
        try await bench.view.waitUntil("the bare page") {
            await bench.view.evaluateReturningJSON("!!(window.__bin && window.__bin.ready(true))") == "true"
        }
        bench.webProcess = MemoryProbe.webProcesses().filter { !before.contains($0) }.last
        return bench
    }

    private init() throws {
        view = try PeerWebView()
        BareBinaryScheme.install(on: view.view)
    }

    func close() {
        view.close()
    }

    /// Runs `count` calls of `bytes` bytes through `mode` (`bare-up` or `bare-down`), one at a time.
    /// - Returns: seconds per call, as the page measured them.
    /// - Throws: ``EngineBench/Failure`` when the page reports an error; ``PeerWebView/Failure`` on a timeout.
    func run(_ mode: String, bytes: Int, count: Int) async throws -> Double {
        _ = await view.evaluateReturningJSON(BinaryBenchPage.start(mode, bytes: bytes, count: count))
        var result = "null"
        try await view.waitUntil("\(count) \(mode) calls of \(bytes) B") {
            result = await self.view.evaluateReturningJSON(BinaryBenchPage.result) ?? "null"
            return result != "null"
        }
        return try BinaryBenchPage.secondsPerCall(resultJSON: result, count: count)
    }

    /// The peak memory growth of this process and of the view's web process during one call
    /// (``MemoryProbe/peakGrowth(web:during:)``).
    func peakMemory(_ mode: String, bytes: Int) async throws -> (ui: Int, web: Int?) {
        try await MemoryProbe.peakGrowth(web: webProcess) { _ = try await run(mode, bytes: bytes, count: 1) }
    }
}
#endif
