#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Synchronization

/// One web view with BridgeKit and its byte transport (``WebKitGTKBridgeHost/binaryTransfers``)
/// showing ``BinaryBenchPage``, with four tasks: `BinUpload` and `BinDownload` move bytes as
/// binary values, `B64Upload` and `B64Download` move the same bytes as base64 strings in JSON.
/// The router's message limits are raised so that 100 MiB in base64 (140 MB of JSON) passes.
///
/// Thread: main actor (GTK's thread).
@MainActor
final class BinaryBench {
    let webView: GTKWebView
    let host: WebKitGTKBridgeHost
    /// The web process of this view (started after the views open before it), when found.
    private(set) var webProcess: Int32?
    private var loaded = false

    private struct UploadOptions: Decodable, Sendable {
        let file: BridgeBinary
    }
    private struct Base64Options: Decodable, Sendable {
        let data: String
    }
    private struct DownloadResult: Encodable, Sendable {
        let file: BridgeBinary
    }
    private struct Base64Result: Encodable, Sendable {
        let data: String
    }

    /// The largest download sent as `Data` held whole (the default `BinaryLimits.maxHeldBytes`);
    /// larger ones are streamed, and the page reads them as streams.
    nonisolated static let largestHeldDownload = BinaryBenchPage.largestWholeDownload

    /// Creates the view, loads the page and waits until the shim is there.
    static func open() async throws -> BinaryBench {
        let before = Set(MemoryProbe.webProcesses())
        let bench = try BinaryBench()
        try bench.webView.loadHTML(BinaryBenchPage.html, baseURI: BinaryBenchPage.origin + "/")
        try await bench.waitUntil("page load") { bench.loaded }
        try await bench.waitUntil("the shim") {
            (try? await bench.webView.evaluateJavaScriptReturningJSON("window.__bin && window.__bin.ready()"))
                == "true"
        }
        bench.webProcess = MemoryProbe.webProcesses().filter { !before.contains($0) }.last
        return bench
    }

    private init() throws {
        let limits = BridgeLimits(maxPayloadBytes: 256 << 20, maxHeldBytes: 1 << 30)
        let router = BridgeRouter(
            configuration: BridgeConfiguration(
                policy: .origins([OriginPattern(BinaryBenchPage.origin)]), limits: limits))
        let transfers = BinaryTransfers(router: router)
        try router.register(
            ClosureTask(name: "BinUpload") { (options: UploadOptions, context: CallContext) -> Int in
                var bytes = 0
                for try await chunk in try transfers.upload(of: options.file, context: context) {
                    bytes += chunk.count
                }
                return bytes
            })
        try router.register(
            ClosureTask(name: "BinDownload") { (count: Int, context: CallContext) -> DownloadResult in
                guard count > Self.largestHeldDownload else {
                    return DownloadResult(file: try await transfers.send(Data(count: count), context: context))
                }
                // Over what native may hold (BinaryLimits.maxHeldBytes): a stream task, its
                // 1 MiB chunks made as the page reads them.
                let remaining = Mutex(count)
                let chunk = Data(count: BinaryLimits().chunkBytes)
                let stream = AsyncThrowingStream<Data, any Error>(unfolding: {
                    let next = remaining.withLock { left -> Int in
                        let next = min(left, chunk.count)
                        left -= next
                        return next
                    }
                    return next == 0 ? nil : next == chunk.count ? chunk : chunk.prefix(next)
                })
                return DownloadResult(file: try await transfers.send(chunks: stream, size: count, context: context))
            })
        try router.register(
            ClosureTask(name: "B64Upload") { (options: Base64Options, _: CallContext) -> Int in
                guard let data = Data(base64Encoded: options.data) else {
                    throw BridgeError.invalidOptions("not base64", path: "data")
                }
                return data.count
            })
        try router.register(
            ClosureTask(name: "B64Download") { (count: Int, _: CallContext) -> Base64Result in
                Base64Result(data: Data(count: count).base64EncodedString())
            })
        webView = try GTKWebView(
            configuration: GTKWebViewConfiguration(applicationName: "bridgebench", applicationVersion: "1"))
        host = WebKitGTKBridgeHost(router: router, webView: webView)
        host.binaryTransfers = transfers
        try host.attach()
        host.page.onLoadEvent = { [weak self] event in
            if event == .finished { self?.loaded = true }
        }
    }

    func close() async {
        await host.close()
    }

    /// Runs `count` calls of `bytes` bytes through `mode` (a ``BinaryBenchPage`` mode), one at a time.
    /// - Returns: seconds per call, as the page measured them.
    /// - Throws: ``EngineBench/Failure`` when the page reports an error or does not answer.
    func run(_ mode: String, bytes: Int, count: Int) async throws -> Double {
        _ = try await webView.evaluateJavaScriptReturningJSON(BinaryBenchPage.start(mode, bytes: bytes, count: count))
        var result = "null"
        try await waitUntil("\(count) \(mode) calls of \(bytes) B") {
            result = (try? await self.webView.evaluateJavaScriptReturningJSON(BinaryBenchPage.result)) ?? "null"
            return result != "null"
        }
        return try BinaryBenchPage.secondsPerCall(resultJSON: result, count: count)
    }

    /// The growth of the peak resident memory of this (UI) process and of the view's web process
    /// during one call of `bytes` through `mode`, in bytes (``MemoryProbe/peakGrowth(web:during:)``).
    func peakMemory(_ mode: String, bytes: Int) async throws -> (ui: Int, web: Int?) {
        try await MemoryProbe.peakGrowth(web: webProcess) { _ = try await run(mode, bytes: bytes, count: 1) }
    }

    /// Polls `condition` until it holds; GLib keeps running while this task sleeps.
    private func waitUntil(_ what: String, timeout: Double = 600, _ condition: () async -> Bool) async throws {
        let deadline = Measure.now() + timeout
        while await !condition() {
            if Measure.now() > deadline { throw EngineBench.Failure.timeout(what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
#endif
