#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks
import Foundation

/// What one startup round measured.
struct StartupSample {
    /// Seconds from creating the web view to the page's first call answered.
    let seconds: Double
    /// Growth of this (UI) process's resident memory with the view open and idle, in bytes.
    let uiBytes: Int
    /// Resident memory of the view's new web processes, idle, in bytes (nil when none was found).
    let webBytes: Int?
}

extension BenchRun {
    /// Startup and many pages: the time from creating a web view to the page's first call answered,
    /// with BridgeKit (shim and relay injected at document start, the router, the stock `Echo`
    /// task) and without (a ``GTKWebView`` with a bare reply handler); the memory of one idle web
    /// view either way; and the aggregate rate of four bridged web views calling at once against one.
    @MainActor
    func runStartup(into table: inout ResultTable) async throws {
        var bridged: [StartupSample] = []
        var bare: [StartupSample] = []
        _ = try await startBare()  // warm-up: GTK, the network process, caches
        for round in 0..<settings.startupRounds {
            if round % 2 == 0 {
                bridged.append(try await startBridged())
                bare.append(try await startBare())
            } else {
                bare.append(try await startBare())
                bridged.append(try await startBridged())
            }
        }
        let bridgedTime = Spread(bridged.map(\.seconds))
        let bareTime = Spread(bare.map(\.seconds))
        progress("startup: with BridgeKit \(bridgedTime.durationText), without \(bareTime.durationText)")
        table.add(
            "startup",
            "create web view → first call answered, with BridgeKit vs bare reply handler (\(settings.startupRounds) rounds)",
            bridge: bridgedTime.durationText, bare: bareTime.durationText, ratio: bridgedTime.median / bareTime.median,
            target: nil)
        let bridgedUI = Spread(bridged.map { Double($0.uiBytes) })
        let bareUI = Spread(bare.map { Double($0.uiBytes) })
        table.add(
            "startup", "one idle web view, UI process memory growth, with BridgeKit vs without",
            bridge: bridgedUI.mebibytesText, bare: bareUI.mebibytesText, ratio: nil, target: nil)
        let bridgedWeb = bridged.compactMap(\.webBytes).map(Double.init)
        let bareWeb = bare.compactMap(\.webBytes).map(Double.init)
        if !bridgedWeb.isEmpty, !bareWeb.isEmpty {
            table.add(
                "startup", "one idle web view, its web process's resident memory, with BridgeKit vs without",
                bridge: Spread(bridgedWeb).mebibytesText, bare: Spread(bareWeb).mebibytesText,
                ratio: Spread(bridgedWeb).median / Spread(bareWeb).median, target: nil)
        }
        try await runManyPages(into: &table)
    }

    /// One round with BridgeKit: creates the view, router and host, loads a page whose script
    /// calls `Echo` at once, waits for the answer, idles a second, measures memory and closes all.
    @MainActor
    private func startBridged() async throws -> StartupSample {
        let (uiBefore, webBefore) = Self.memoryBaseline()
        let start = Date().timeIntervalSince1970
        let router = BridgeRouter(
            configuration: BridgeConfiguration(policy: .origins([OriginPattern(StartupPage.origin)])))
        try router.register(EchoTask(name: "Echo"))
        let webView = try GTKWebView(
            configuration: GTKWebViewConfiguration(applicationName: "bridgebench", applicationVersion: "1"))
        let host = WebKitGTKBridgeHost(router: router, webView: webView)
        do {
            try host.attach()
            try webView.loadHTML(
                StartupPage.html(call: "window.WebBridge.call('Echo', { ping: 1 })"), baseURI: StartupPage.origin + "/")
            let sample = try await Self.waitForAnswer(
                webView, start: start, uiBefore: uiBefore, webBefore: webBefore, idle: settings.startupIdle)
            await host.close()
            webView.close()
            return sample
        } catch {
            await host.close()
            webView.close()
            throw error
        }
    }

    /// One round without BridgeKit: the same view and page, the call a `postMessage` to a
    /// page-world handler registered with reply that answers with the posted text.
    @MainActor
    private func startBare() async throws -> StartupSample {
        let (uiBefore, webBefore) = Self.memoryBaseline()
        let start = Date().timeIntervalSince1970
        let webView = try GTKWebView(
            configuration: GTKWebViewConfiguration(applicationName: "bridgebench", applicationVersion: "1"))
        do {
            try webView.registerScriptMessageHandler(name: "bare", world: nil, withReply: true) { message in
                message.reply?.returnValue(message.bodyJSONText)
            }
            try webView.loadHTML(
                StartupPage.html(call: "window.webkit.messageHandlers.bare.postMessage(JSON.stringify({ ping: 1 }))"),
                baseURI: StartupPage.origin + "/")
            let sample = try await Self.waitForAnswer(
                webView, start: start, uiBefore: uiBefore, webBefore: webBefore, idle: settings.startupIdle)
            webView.close()
            return sample
        } catch {
            webView.close()
            throw error
        }
    }

    /// This process's resident memory (after returning free heap memory) and the web processes
    /// that exist already.
    private static func memoryBaseline() -> (ui: Int, web: Set<Int32>) {
        MemoryProbe.trimHeap()
        return (MemoryProbe(pid: nil).read()?.rss ?? 0, Set(MemoryProbe.webProcesses()))
    }

    /// Waits until the page noted its answer (polling every 5 ms; the time itself is the page's
    /// `Date.now()`), idles for `idle`, and measures memory.
    @MainActor
    private static func waitForAnswer(
        _ webView: GTKWebView, start: Double, uiBefore: Int, webBefore: Set<Int32>,
        idle: Duration
    ) async throws -> StartupSample {
        var answeredAt: Double?
        let deadline = Measure.now() + 60
        while answeredAt == nil {
            if Measure.now() > deadline { throw EngineBench.Failure.timeout("the first call of a new web view") }
            try await Task.sleep(for: .milliseconds(5))
            if let json = try? await webView.evaluateJavaScriptReturningJSON("window.__answeredAt || 0"),
                let value = Double(json), value != 0
            {
                answeredAt = value
            }
        }
        guard let answeredAt, answeredAt > 0 else { throw EngineBench.Failure.page("the first call failed") }
        try await Task.sleep(for: idle)
        MemoryProbe.trimHeap()
        let ui = (MemoryProbe(pid: nil).read()?.rss ?? 0) - uiBefore
        let fresh = Set(MemoryProbe.webProcesses()).subtracting(webBefore)
        let web = fresh.compactMap { MemoryProbe(pid: $0).read()?.rss }
        return StartupSample(
            seconds: answeredAt / 1000 - start, uiBytes: max(ui, 0), webBytes: web.isEmpty ? nil : web.reduce(0, +))
    }

    /// Four bridged web views (each its own page, router and web process) calling at once against
    /// one: the aggregate round trips per second of the typed synchronous task with 100 B, one at
    /// a time and pipelined, timed by this process's clock from start to the last view's end.
    @MainActor
    private func runManyPages(into table: inout ResultTable) async throws {
        var engines: [EngineBench] = []
        do {
            for _ in 0..<4 { engines.append(try await EngineBench.open()) }
            try await runManyPages(engines, into: &table)
        } catch {
            for engine in engines { await engine.close() }
            throw error
        }
        for engine in engines { await engine.close() }
    }

    @MainActor
    private func runManyPages(_ engines: [EngineBench], into table: inout ResultTable) async throws {
        let key = "many 100 B"
        for engine in engines { try await engine.setPayload(.make(bytes: 100), key: key) }
        let plan = settings.manyPagesPlan
        for (mode, count, width) in [
            ("sequential", plan.sequential, 1), ("pipelined ×\(plan.width)", plan.pipelined, plan.width),
        ] {
            for engine in engines {
                _ = try await engine.run("router-sync", key: key, count: max(count / 10, 1), width: width)
            }
            var one: [Double] = []
            var four: [Double] = []
            for _ in 0..<plan.rounds {
                var start = Measure.now()
                _ = try await engines[0].run("router-sync", key: key, count: count, width: width)
                one.append(Double(count) / (Measure.now() - start))
                start = Measure.now()
                async let a = engines[0].run("router-sync", key: key, count: count, width: width)
                async let b = engines[1].run("router-sync", key: key, count: count, width: width)
                async let c = engines[2].run("router-sync", key: key, count: count, width: width)
                async let d = engines[3].run("router-sync", key: key, count: count, width: width)
                _ = try await (a, b, c, d)
                four.append(Double(4 * count) / (Measure.now() - start))
            }
            // Rates: the spread's text wants seconds per call.
            let oneSpread = Spread(one.map { 1 / $0 })
            let fourSpread = Spread(four.map { 1 / $0 })
            progress("many pages 100 B \(mode): four views \(fourSpread.rateText), one view \(oneSpread.rateText)")
            table.add(
                "many pages",
                "100 B \(mode), typed synchronous task, four web views at once vs one, aggregate round trips per second",
                bridge: fourSpread.rateText, bare: oneSpread.rateText, ratio: oneSpread.median / fourSpread.median,
                target: nil)
        }
    }
}

/// The page of the startup rounds: makes one call as soon as its script runs and notes when it was
/// answered (`Date.now()`, ms since the epoch; -1 when it failed) in `window.__answeredAt`.
enum StartupPage {
    static let origin = "https://startup.bridgekit.invalid"

    static func html(call: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>startup</title></head><body>
        <script>
        \(call).then(function () { window.__answeredAt = Date.now(); }, function () { window.__answeredAt = -1; });
        </script>
        </body></html>
        """
    }
}
#endif
