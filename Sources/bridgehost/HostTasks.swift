#if WebKitGTK
import BridgeKit
import BridgeTasks
import Foundation
import Synchronization

/// What the page told bridgehost through its control tasks.
final class HostControl: Sendable {
    /// The page's final report (`bridgehost.done`).
    struct Done: Decodable, Sendable {
        var ok: Bool
        var roundTripsPerSecond: Double?
        var error: String?
    }

    private struct State {
        var expected: [String: Int] = [:]
        var done: Done?
        /// Whether the reply to the `bridgehost.done` call that reported `done` has gone out.
        var answered = false
        var waiters: [CheckedContinuation<Done?, Never>] = []
    }

    private let state = Mutex(State())

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

    /// Records the page's final report; later reports are ignored. ``waitForDone(timeout:)``
    /// wakes only once the report's call is answered (``noteReply(_:)``): closing the router
    /// before that would answer the page's last call with `unavailable`.
    func report(_ done: Done) {
        state.withLock { state in
            if state.done == nil { state.done = done }
        }
    }

    /// Notes an outbound traffic record; the reply to `bridgehost.done` after a report wakes
    /// ``waitForDone(timeout:)``.
    func noteReply(_ record: TrafficRecord) {
        guard record.direction == .outbound, record.kind == "reply", record.task == "bridgehost.done" else { return }
        let (done, waiters) = state.withLock { state -> (Done?, [CheckedContinuation<Done?, Never>]) in
            guard let done = state.done, !state.answered else { return (nil, []) }
            state.answered = true
            defer { state.waiters.removeAll() }
            return (done, state.waiters)
        }
        for waiter in waiters { waiter.resume(returning: done) }
    }

    /// Waits until the page has reported it is done and that call is answered, or `timeout`
    /// seconds pass (then `nil`).
    func waitForDone(timeout: Double) async -> Done? {
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
            self?.timeOut()
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let existing: Done?? = state.withLock { state in
                if let done = state.done, state.answered { return .some(done) }
                state.waiters.append(continuation)
                return .none
            }
            if let existing { continuation.resume(returning: existing) }
        }
    }

    private func timeOut() {
        let waiters = state.withLock { state -> [CheckedContinuation<Done?, Never>] in
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}

/// The tasks bridgehost adds to the stock ones: the demo page's own, and its control tasks.
enum HostTasks {
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
