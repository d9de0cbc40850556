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
        _ = await view.evaluateReturningJSON("window.__bin.start('\(mode)', \(bytes), \(count)), 0")
        struct Outcome: Decodable {
            let ms: Double?
            let error: String?
        }
        var outcome: Outcome?
        try await view.waitUntil("\(count) \(mode) calls of \(bytes) B") {
            guard let json = await self.view.evaluateReturningJSON("window.__bin.result"), json != "null" else {
                return false
            }
            outcome = try? JSONDecoder().decode(Outcome.self, from: Data(json.utf8))
            return true
        }
        if let error = outcome?.error { throw EngineBench.Failure.page(error) }
        guard let ms = outcome?.ms else { throw EngineBench.Failure.page("no result") }
        return ms / 1000 / Double(max(count, 1))
    }

    /// The peak memory growth of this process and of the view's web process during one call, as
    /// ``BinaryBench/peakMemory(_:bytes:)`` measures it.
    func peakMemory(_ mode: String, bytes: Int) async throws -> (ui: Int, web: Int?) {
        let ui = MemoryProbe(pid: nil)
        let web = webProcess.map { MemoryProbe(pid: $0) }
        MemoryProbe.trimHeap()
        let uiReset = ui.resetPeak()
        let webReset = web?.resetPeak() ?? false
        let uiBefore = ui.read()?.rss ?? 0
        let webBefore = web?.read()?.rss ?? 0
        _ = try await run(mode, bytes: bytes, count: 1)
        let uiPeak = (ui.read()?.peak ?? 0) - (uiReset ? uiBefore : 0)
        let webPeak = web.flatMap { probe in webReset ? probe.read().map { $0.peak - webBefore } : nil }
        return (max(uiPeak, 0), webPeak.map { max($0, 0) })
    }
}
#endif
