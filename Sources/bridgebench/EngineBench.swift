#if WebKitGTK
import BridgeKit
import BridgeTasks
import BridgeKitGTK
import Foundation

/// One web view with BridgeKit attached (``WebKitGTKBridgeHost``, the router, ``BenchEchoTask``)
/// and a bare page-world echo handler registered on the same ``GTKWebView``, showing
/// ``BenchPage``. Runs the page's measurements and reads their results.
///
/// Thread: main actor (GTK's thread).
@MainActor
final class EngineBench {
    let router: BridgeRouter
    let webView: GTKWebView
    let host: WebKitGTKBridgeHost
    private var loaded = false

    enum Failure: Error, CustomStringConvertible {
        case page(String)
        case timeout(String)

        var description: String {
            switch self {
            case .page(let message): "the page reported: \(message)"
            case .timeout(let what): "timed out: \(what)"
            }
        }
    }

    /// Creates the view, attaches BridgeKit and the bare handler, loads the page and waits until
    /// the shim and the handler are there.
    static func open() async throws -> EngineBench {
        let before = Set(MemoryProbe.webProcesses())
        let bench = try EngineBench()
        try bench.webView.loadHTML(BenchPage.html, baseURI: BenchPage.origin + "/")
        try await bench.waitUntil("page load") { bench.loaded }
        try await bench.waitUntil("the shim and the handler") {
            (try? await bench.webView.evaluateJavaScriptReturningJSON("window.__bench && window.__bench.ready()"))
                == "true"
        }
        bench.webProcess = MemoryProbe.webProcesses().filter { !before.contains($0) }.last
        return bench
    }

    /// The process id of this view's web process (each view has an ephemeral context and a web
    /// process of its own), nil when it could not be told apart.
    private(set) var webProcess: Int32?

    private init() throws {
        router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins([OriginPattern(BenchPage.origin)])))
        for kind in BenchTaskKind.allCases { try kind.register(in: router) }
        try router.register(EchoTask(name: "Echo"))
        webView = try GTKWebView(
            configuration: GTKWebViewConfiguration(applicationName: "bridgebench", applicationVersion: "1"))
        host = WebKitGTKBridgeHost(router: router, webView: webView)
        try host.attach()
        // The bare echo: no router, no relay, no escaping; the posted text goes straight back.
        try webView.registerScriptMessageHandler(name: "bareecho", world: nil, withReply: false) {
            [weak webView] message in
            guard let webView else { return }
            let script = "window.__bareReceive(" + message.bodyJSONText + ")"
            Task { @MainActor in try? await webView.evaluateJavaScript(script) }
        }
        // The bare echo with the typed task's work: decodes the same `BenchPayload` with
        // `JSONDecoder` and encodes it with `JSONEncoder` (BridgeKit's output formatting),
        // then echoes it like the bare echo.
        let decoder = JSONDecoder()
        let encoder = BareCodec.makeEncoder()
        try webView.registerScriptMessageHandler(name: "baretyped", world: nil, withReply: false) {
            [weak webView] message in
            guard let webView,
                let call = try? decoder.decode(BareTypedCall.self, from: Data(message.bodyJSONText.utf8)),
                let json = try? encoder.encode(call)
            else { return }
            let script = "window.__bareReceive(" + String(decoding: json, as: UTF8.self) + ")"
            Task { @MainActor in try? await webView.evaluateJavaScript(script) }
        }
        // The same with the thread hop of a concurrent task: decodes and encodes in a Swift task
        // on the global executor, evaluates from the main actor.
        try webView.registerScriptMessageHandler(name: "baretypedhop", world: nil, withReply: false) {
            [weak webView] message in
            guard let webView else { return }
            let text = message.bodyJSONText
            Task.detached { [decoder, encoder] in
                guard let call = try? decoder.decode(BareTypedCall.self, from: Data(text.utf8)),
                    let json = try? encoder.encode(call)
                else { return }
                let script = "window.__bareReceive(" + String(decoding: json, as: UTF8.self) + ")"
                Task { @MainActor in try? await webView.evaluateJavaScript(script) }
            }
        }
        host.page.onLoadEvent = { [weak self] event in
            if event == .finished { self?.loaded = true }
        }
    }

    /// What the page posts to the bare handlers: `JSON.stringify({id, data})`.
    private struct BareTypedCall: Codable {
        let id: Int
        let data: BenchPayload
    }

    func close() async {
        await host.close()
    }

    /// Stores `payload` in the page under `key`.
    func setPayload(_ payload: BenchPayload, key: String) async throws {
        let json = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        try await webView.evaluateJavaScript("window.__bench.setPayload(\(Self.quoted(key)), \(json))")
    }

    /// Forgets the payload `key` in the page.
    func dropPayload(key: String) async throws {
        try await webView.evaluateJavaScript("window.__bench.dropPayload(\(Self.quoted(key)))")
    }

    /// CPU seconds per call of the UI process and the web process in the last ``run(_:key:count:width:)``.
    private(set) var lastCPU: (ui: Double, web: Double?) = (0, nil)

    /// Runs `count` calls of payload `key` through `mode` (a ``BenchPage`` call mode), `width` at a time.
    /// With `verify` (the default) one more call comes first, whose answer is compared with the
    /// payload in full; without it exactly `count` calls run (each answer still checked by size).
    /// - Returns: seconds per call, as the page measured them with `performance.now()`.
    func run(_ mode: String, key: String, count: Int, width: Int = 1, verify: Bool = true) async throws -> Double {
        let web = webProcess.map { MemoryProbe(pid: $0) }
        let ui0 = Measure.processCPUTime()
        let web0 = web?.cpuSeconds()
        defer {
            let calls = Double(max(count, 1))
            let webCPU = web0.flatMap { start in web?.cpuSeconds().map { ($0 - start) / calls } }
            lastCPU = ((Measure.processCPUTime() - ui0) / calls, webCPU)
        }
        try await webView.evaluateJavaScript(
            "window.__bench.start(\(Self.quoted(mode)), \(Self.quoted(key)), \(count), \(width), \(verify))")
        struct Outcome: Decodable {
            let ms: Double?
            let error: String?
        }
        var outcome: Outcome?
        try await waitUntil("\(count) \(mode) calls of \(key)", pollEvery: .milliseconds(20)) {
            guard let json = try? await self.webView.evaluateJavaScriptReturningJSON("window.__bench.result"),
                json != "null"
            else {
                return false
            }
            outcome = try? JSONDecoder().decode(Outcome.self, from: Data(json.utf8))
            return true
        }
        if let error = outcome?.error { throw Failure.page(error) }
        guard let ms = outcome?.ms else { throw Failure.page("no result") }
        return ms / 1000 / Double(max(count, 1))
    }

    /// Polls `condition` until it holds; GLib keeps running while this task sleeps.
    private func waitUntil(
        _ what: String, pollEvery interval: Duration = .milliseconds(10), timeout: Double = 600,
        _ condition: () async -> Bool
    ) async throws {
        let deadline = Measure.now() + timeout
        while await !condition() {
            if Measure.now() > deadline { throw Failure.timeout(what) }
            try await Task.sleep(for: interval)
        }
    }

    private static func quoted(_ text: String) -> String {
        (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
#endif
