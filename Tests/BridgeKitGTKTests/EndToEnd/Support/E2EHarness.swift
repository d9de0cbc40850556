#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks
import Foundation
import Testing

/// One real page with the bridge: a ``GTKWebView`` (ephemeral data store), a ``BridgeRouter``
/// with the given policy and the stock and test tasks, attached by ``WebKitGTKBridgeHost``, and
/// the router's traffic log. Pages are loaded from a ``LoopbackServer`` (127.0.0.1 only).
@MainActor
final class E2EHarness {
    let view: GTKWebView
    let router: BridgeRouter
    let host: WebKitGTKBridgeHost
    /// The byte transport's transfers (issue 26), when the harness was made with `binaryLimits`.
    let transfers: BinaryTransfers?
    let traffic = TrafficLog()
    let probe = TaskProbe()
    let history = HistoryTask()
    let alerts = AutomaticAlertPresenter(rule: .last)
    /// Every `HistoryTask` notice, in order (read by a task that drains the stream).
    let notices = Locked<[HistoryNotice]>([])
    /// Every load event the host forwarded, in order.
    private(set) var loadEvents: [GTKLoadEvent] = []
    private var noticeReader: Task<Void, Never>?

    /// Creates the view, the router and the host, registers the tasks and attaches.
    /// - Parameters:
    ///   - policy: the router's access policy.
    ///   - configuration: the view's configuration (ephemeral store by default).
    ///   - extraTasks: registers more tasks on the router.
    ///   - messageTap: the host's traffic tap (``WebKitGTKBridgeHost/onMessage``), set before it attaches.
    init(
        policy: AccessPolicy, configuration: GTKWebViewConfiguration = GTKWebViewConfiguration(),
        binaryLimits: BinaryLimits? = nil, messageTap: (@Sendable (GTKBridgeMessage) -> Void)? = nil,
        extraTasks: (BridgeRouter, TaskProbe) throws -> Void = { _, _ in }
    ) throws {
        view = try GTKWebView(configuration: configuration)
        router = BridgeRouter(configuration: BridgeConfiguration(policy: policy))
        router.setTrafficObserver(traffic.observer)
        try router.register(AlertTask(presenter: alerts))
        try router.register(history)
        try router.register(EchoTask())
        try router.register(E2ETasks.record(probe))
        try router.register(E2ETasks.slow(probe))
        try router.register(E2ETasks.progress(probe))
        try router.register(E2ETasks.whoAmI(probe))
        try extraTasks(router, probe)
        host = WebKitGTKBridgeHost(router: router, webView: view)
        if let binaryLimits {
            transfers = BinaryTransfers(router: router, limits: binaryLimits)
        } else {
            transfers = nil
        }
        host.binaryTransfers = transfers
        host.onMessage = messageTap
        try host.attach()
        host.page.onLoadEvent = { [weak self] event in self?.loadEvents.append(event) }
        let stream = history.notices
        noticeReader = Task { [notices] in
            for await notice in stream { notices.update { $0.append(notice) } }
        }
    }

    /// A harness whose router allows the main frame of `origins` only (the default policy shape).
    convenience init(
        allowing origins: [String], configuration: GTKWebViewConfiguration = GTKWebViewConfiguration(),
        extraTasks: (BridgeRouter, TaskProbe) throws -> Void = { _, _ in }
    ) throws {
        try self.init(
            policy: .origins(origins.map { OriginPattern($0) }), configuration: configuration, extraTasks: extraTasks)
    }

    /// Closes the host (router and view) and ends the notice reader. Idempotent.
    func close() async {
        history.finish()
        noticeReader?.cancel()
        noticeReader = nil
        await host.close()
    }

    // MARK: Loading

    /// Starts loading `uri` and waits for that load to finish and the new document to be complete.
    /// - Parameter timeout: how long the load may take (a page of hundreds of frames needs more
    ///   than the default on a slow machine).
    func load(_ uri: String, timeout: Duration = e2eDeadline) async throws {
        let mark = loadEvents.count
        try view.load(uri: uri)
        try await waitForLoad(after: mark, what: "load of \(uri)", timeout: timeout)
    }

    /// Reloads and waits for the new document.
    func reload() async throws {
        let mark = loadEvents.count
        view.reload()
        try await waitForLoad(after: mark, what: "reload")
    }

    /// Waits for a `started` load event after the first `mark` events and a `finished` after it (a
    /// late `finished` of an earlier load does not count), then for `readyState` "complete".
    func waitForLoad(after mark: Int, what: String, timeout: Duration = e2eDeadline) async throws {
        let finished = await eventually(timeout: timeout) {
            let recent = loadEvents.dropFirst(mark)
            guard let start = recent.firstIndex(of: .started) else { return false }
            return recent[start...].contains(.finished)
        }
        guard finished else {
            let seen = loadEvents.dropFirst(mark).map { "\($0)" }.joined(separator: ", ")
            throw E2EError.timedOut("\(what) (load events since: [\(seen)]; view at \(view.uri ?? "nil"))")
        }
        try await waitFor("document.readyState === 'complete'")
    }

    // MARK: Page scripts

    /// Runs `script` in the page's main frame (page world).
    func run(_ script: String) async throws {
        try await view.evaluateJavaScript(script)
    }

    /// The JSON value of `expression` in the page; `undefined` is an error.
    func json(_ expression: String) async throws -> JSONValue {
        guard let text = try await view.evaluateJavaScriptReturningJSON(expression) else {
            throw E2EError.unexpectedValue("\(expression) is undefined")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw E2EError.unexpectedValue("\(expression) gave \(text.prefix(200))")
        }
    }

    /// The value of `expression` decoded as `T`.
    func value<T: Decodable>(_ expression: String, as type: T.Type = T.self) async throws -> T {
        guard let text = try await view.evaluateJavaScriptReturningJSON(expression) else {
            throw E2EError.unexpectedValue("\(expression) is undefined")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw E2EError.unexpectedValue("\(expression) gave \(text.prefix(200)) (\(error))")
        }
    }

    /// Whether the boolean `expression` is true in the page.
    func isTrue(_ expression: String) async throws -> Bool {
        try await view.evaluateJavaScriptReturningJSON("!!(\(expression))") == "true"
    }

    /// Polls the page until `expression` is true, sleeping `interval` between evaluations.
    /// - Throws: ``E2EError/timedOut(_:)`` after `timeout`.
    func waitFor(_ expression: String, timeout: Duration = e2eDeadline, interval: Duration = .milliseconds(5))
        async throws
    {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !(try await isTrue(expression)) {
            guard clock.now < deadline else { throw E2EError.timedOut(expression) }
            try await Task.sleep(for: interval)
        }
    }

    /// Waits until the page-side outcomes of `keys` (``E2EPage/helpers`` `e2eCall`) are all there.
    func waitForSettled(_ keys: [String]) async throws {
        let list = keys.map { E2EPage.jsLiteral($0) }.joined(separator: ",")
        try await waitFor("[\(list)].every(function (k) { return window.__settled[k] != null; })")
    }

    /// The outcome of the page call `key`.
    func outcome(_ key: String) async throws -> PageOutcome {
        try await value("window.__settled[\(E2EPage.jsLiteral(key))]")
    }
}

/// The outcome of one `e2eCall` in the page.
struct PageOutcome: Decodable, Sendable {
    var ok: Bool
    var data: JSONValue?
    var code: String?
    var message: String?
    var isBridgeError: Bool?
    var details: JSONValue?
}
#endif
