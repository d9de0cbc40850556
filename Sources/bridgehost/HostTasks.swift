#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks
import Foundation
import Synchronization

/// What the page told bridgehost through its control tasks, and how the run ends.
final class HostControl: Sendable {
    /// The page's final report (`bridgehost.done`).
    struct Done: Decodable, Sendable {
        var ok: Bool
        var roundTripsPerSecond: Double?
        var error: String?
        /// Lines the page wants in the summary.
        var summary: [String]?
    }

    /// Why a run ended.
    enum End: Sendable {
        /// The page called `bridgehost.done` and got its reply.
        case done
        /// The time limit passed.
        case timedOut
        /// The page did not load (network error, HTTP status >= 400), with the description.
        case loadFailed(String)
        /// The window was closed (or Ctrl-C / SIGTERM with `--window`).
        case windowClosed
    }

    private struct State {
        var expected: [String: Int] = [:]
        var done: Done?
        /// Whether the reply to the `bridgehost.done` call that reported `done` has gone out.
        var answered = false
        var end: End?
        var waiters: [CheckedContinuation<End, Never>] = []
    }

    /// Whether `bridgehost.done` ends the run (not with `--window`: the window stays open).
    let doneEndsRun: Bool
    private let state = Mutex(State())

    init(doneEndsRun: Bool = true) { self.doneEndsRun = doneEndsRun }

    /// The page announces that the next error with `code` is expected.
    func expect(_ code: String) { state.withLock { $0.expected[code, default: 0] += 1 } }

    /// Consumes one expectation for `code`; `false` when the error was not announced.
    func consumeExpectation(_ code: String) -> Bool {
        state.withLock { state in
            guard let count = state.expected[code], count > 0 else { return false }
            state.expected[code] = count - 1
            return true
        }
    }

    /// The page's report, once it has called `bridgehost.done`.
    var done: Done? { state.withLock { $0.done } }

    /// Records the page's final report; later reports are ignored. The run ends only once the
    /// report's call is answered (``noteReply(_:)``): closing the router before that would
    /// answer the page's last call with `unavailable`.
    func report(_ done: Done) {
        state.withLock { state in
            if state.done == nil { state.done = done }
        }
    }

    /// Notes an outbound traffic record; the reply to `bridgehost.done` after a report ends the run.
    func noteReply(_ record: TrafficRecord) {
        guard record.direction == .outbound, record.kind == .reply, record.task == "bridgehost.done" else { return }
        let shouldEnd = state.withLock { state -> Bool in
            guard state.done != nil, !state.answered else { return false }
            state.answered = true
            return true
        }
        if shouldEnd, doneEndsRun { end(.done) }
    }

    /// Ends the run (the first end wins).
    func end(_ reason: End) {
        let (end, waiters) = state.withLock { state -> (End, [CheckedContinuation<End, Never>]) in
            if state.end == nil { state.end = reason }
            defer { state.waiters.removeAll() }
            return (state.end ?? reason, state.waiters)
        }
        for waiter in waiters { waiter.resume(returning: end) }
    }

    /// Waits until the run ends, or `timeout` seconds pass (`nil`: no limit).
    func waitForEnd(timeout: Double?) async -> End {
        let timer = Task { [weak self] in
            guard let timeout, (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
            self?.end(.timedOut)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let existing = state.withLock { state -> End? in
                if let end = state.end { return end }
                state.waiters.append(continuation)
                return nil
            }
            if let existing { continuation.resume(returning: existing) }
        }
    }
}

/// The tasks bridgehost adds to the stock ones: the demo page's own, and its control tasks.
enum HostTasks {
    /// The byte transport and the folder of the stock `File` tasks (binary values, issue 26).
    struct FileTasks {
        var transfers: BinaryTransfers
        /// Where `File.save` writes and `File.open` reads.
        var directory: URL
    }

    /// Where a task comes from (`--list-tasks`).
    enum Origin: String {
        case stock, mock, bridgehost, demo
    }

    /// Registers the stock tasks, bridgehost's own and the mocks (a mock replaces a task of the
    /// same name) in `router`.
    /// - Returns: every task name with where it comes from, sorted by name.
    @discardableResult
    static func register(
        in router: BridgeRouter, control: HostControl, history: HistoryTask, files: FileTasks, mocks: MockFile?,
        alertChoice: String?, alertDialog: GTKAlertPresenter? = nil, printer: TrafficPrinter
    ) throws -> [(name: String, origin: Origin, mock: MockFile.Entry?)] {
        var origins: [String: (Origin, MockFile.Entry?)] = [:]
        let alert = AlertTask(
            presenter: HostAlertPresenter(choice: alertChoice, printer: printer, dialog: alertDialog))
        let save = FileSaveTask(transfers: files.transfers, directory: files.directory)
        let open = FileOpenTask(transfers: files.transfers, directory: files.directory)
        try router.register(alert)
        try router.register(history)
        try router.register(save)
        try router.register(open)
        for name in [alert.name, history.name, save.name, open.name] { origins[name] = (.stock, nil) }
        for task in all(control: control, router: WeakRouter(router)) {
            try router.register(task)
            origins[task.name] = (
                task.name.hasPrefix("bridgehost.") ? .bridgehost : task.name.hasPrefix("demo.") ? .demo : .stock, nil
            )
        }
        for entry in mocks?.entries ?? [] {
            _ = router.replace(MockTask(entry: entry, router: WeakRouter(router)))
            origins[entry.task] = (.mock, entry)
        }
        return origins.keys.sorted().compactMap { name in origins[name].map { (name, $0.0, $0.1) } }
    }

    struct ExpectError: Decodable, Sendable { var code: String }
    struct Countdown: Decodable, Sendable { var from: Int }
    struct Left: Encodable, Sendable { var left: Int }

    static func all(control: HostControl, router: WeakRouter) -> [any BridgeTask] {
        [
            EchoTask(),
            ClosureTask(name: "bridgehost.expectError") { (options: ExpectError, _: CallContext) in
                control.expect(options.code)
                return NoResult()
            },
            ClosureTask(name: "bridgehost.done") { (options: HostControl.Done, _: CallContext) in
                control.report(options)
                return NoResult()
            },
            ClosureTask(name: "demo.countdown") { (options: Countdown, context: CallContext) -> String in
                guard (0...100).contains(options.from) else {
                    throw BridgeError.invalidOptions("from must be within 0...100", path: "from")
                }
                for left in stride(from: options.from, to: 0, by: -1) {
                    try await context.progress(Left(left: left))
                }
                return "liftoff"
            },
            ClosureTask(name: "demo.askPage") { (_: NoOptions, _: CallContext) -> String in
                guard let router = router.value else { throw BridgeError.unavailable() }
                return try await router.callPage("page.title", as: String.self, timeout: .seconds(5))
            },
            ClosureTask(name: "demo.emit") { (options: JSONValue, _: CallContext) in
                guard let router = router.value else { throw BridgeError.unavailable() }
                try await router.emit("demo.tick", data: options)
                return NoResult()
            },
        ]
    }
}

/// A weak reference to the router for tasks that call back into it (no retain cycle).
final class WeakRouter: Sendable {
    weak let value: BridgeRouter?
    init(_ router: BridgeRouter) { value = router }
}
#endif
