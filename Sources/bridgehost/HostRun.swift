#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks
import Foundation
import Synchronization

/// One run of bridgehost: a web view with the stock tasks, the page, the traffic log.
@MainActor
struct HostRun {
    /// The origin the demo page and local HTML files are loaded with.
    static let localOrigin = "https://page.bridgekit.invalid"

    let options: HostOptions
    let printer = TrafficPrinter()

    /// Runs the page until it calls `bridgehost.done` or the timeout passes.
    /// - Returns: the process exit status.
    func run() async throws -> Int32 {
        let (html, url) = try loadPage()
        let pageOrigin = url.flatMap { SecurityOrigin(url: $0)?.description } ?? Self.localOrigin
        let patterns = ([pageOrigin] + options.extraOrigins).map { OriginPattern($0) }
        let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins(patterns), defaultTimeout: .seconds(options.timeout)))
        let control = HostControl()
        let errors = ErrorTally(control: control)
        router.setTrafficObserver { [printer] (record: TrafficRecord) in
            printer.print(record)
            errors.note(record)
            control.noteReply(record)
        }
        let presenter = AutomaticAlertPresenter(rule: .last) { [printer] request, index in
            printer.event("alert", ["title": request.title.map(JSONValue.string) ?? .null,
                                    "message": request.message.map(JSONValue.string) ?? .null,
                                    "buttons": .array(request.buttons.map(JSONValue.string)),
                                    "chosen": .string(request.buttons[index])])
        }
        let history = HistoryTask()
        try router.register(AlertTask(presenter: presenter))
        try router.register(history)
        for task in HostTasks.all(control: control, router: WeakRouter(router)) { try router.register(task) }
        let historyLog = Task { [printer] in
            for await notice in history.notices {
                printer.event("history", ["type": .string(notice.type.rawValue), "url": .string(notice.url.absoluteString)])
            }
        }

        let webView = try GTKWebView(configuration: GTKWebViewConfiguration(applicationName: "bridgehost", applicationVersion: "1"))
        let host = WebKitGTKBridgeHost(router: router, webView: webView)
        try host.attach()
        let loaded = LoadWaiter()
        host.page.onLoadEvent = { (event: GTKLoadEvent) in if event == .finished { loaded.finish() } }
        if let html {
            try webView.loadHTML(html, baseURI: Self.localOrigin + "/")
        } else if let url {
            try webView.load(uri: url.absoluteString)
        }
        printer.event("load", ["page": .string(options.page ?? "demo"), "origin": .string(pageOrigin)])
        if let scriptFile = options.scriptFile {
            await loaded.wait()
            let script = try String(contentsOfFile: scriptFile, encoding: .utf8)
            try await webView.evaluateJavaScript(script)
            printer.event("script", ["file": .string(scriptFile)])
        }
        let done = await control.waitForDone(timeout: options.timeout)
        historyLog.cancel()
        await host.close()
        history.finish()
        return summarize(done: done, unexpected: errors.unexpected, errors: errors.total)
    }

    private func summarize(done: HostControl.Done?, unexpected: Int, errors: Int) -> Int32 {
        var fields: [String: JSONValue] = [
            "finished": .bool(done != nil), "pageOK": .bool(done?.ok ?? false),
            "errors": .int(Int64(errors)), "unexpectedErrors": .int(Int64(unexpected)),
        ]
        if let rate = done?.roundTripsPerSecond, rate.isFinite { fields["roundTripsPerSecond"] = .double(rate.rounded()) }
        if let error = done?.error { fields["pageError"] = .string(error) }
        printer.event("summary", fields)
        guard options.strict else { return 0 }
        return done?.ok == true && unexpected == 0 ? 0 : 1
    }

    /// The page as HTML text (files and the demo) or as a URL to load.
    private func loadPage() throws -> (html: String?, url: URL?) {
        guard let page = options.page else { return (DemoPage.source, nil) }
        if let url = URL(string: page), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()) {
            return (nil, url)
        }
        return (try String(contentsOfFile: page, encoding: .utf8), nil)
    }
}

/// Counts error replies, and those the page did not announce with `bridgehost.expectError`.
final class ErrorTally: Sendable {
    private let control: HostControl
    private let counts = Mutex((total: 0, unexpected: 0))

    init(control: HostControl) { self.control = control }

    func note(_ record: TrafficRecord) {
        guard record.direction == .outbound, record.kind == "reply", let outcome = record.outcome, outcome != "ok" else { return }
        let expected = control.consumeExpectation(outcome)
        counts.withLock { counts in
            counts.total += 1
            if !expected { counts.unexpected += 1 }
        }
    }

    var total: Int { counts.withLock { $0.total } }
    var unexpected: Int { counts.withLock { $0.unexpected } }
}

/// Waits for the first finished load.
@MainActor
final class LoadWaiter {
    private var finished = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func finish() {
        finished = true
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed { waiter.resume() }
    }

    func wait() async {
        if finished { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}
#endif
