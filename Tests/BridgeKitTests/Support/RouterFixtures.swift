import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization

/// The origin every test page uses unless a test says otherwise.
let appOrigin = "https://app.example"

/// A router that allows `appOrigin` in the main frame, with the given tasks registered.
func makeRouter(
    _ tasks: [any BridgeTask] = [], limits: BridgeLimits = BridgeLimits(), defaultTimeout: Duration? = nil,
    policy: AccessPolicy = .origins([OriginPattern(appOrigin)])
) throws -> BridgeRouter {
    let router = BridgeRouter(
        configuration: BridgeConfiguration(policy: policy, limits: limits, defaultTimeout: defaultTimeout))
    for task in tasks { try router.register(task) }
    return router
}

/// Routes `body` from `appOrigin`'s main frame with a reply handler, waits (up to 20 s) for its
/// first answer, then `settle` more, and returns every answer the handler got. The wait is long
/// (20 s) because a refusal of a 1 MiB body, decoded in a debug build beside the whole parallel
/// suite, once took more than 5 s; it ends at the first answer.
func answers(to body: String, on router: BridgeRouter, settle: Duration = .zero) async throws -> [String?] {
    let answers = Mutex<[String?]>([])
    router.receive(
        .string(body), from: .mainFrame(appOrigin),
        replyHandler: ReplyHandler(carriesFinalReplies: true) { json in answers.withLock { $0.append(json) } })
    let deadline = ContinuousClock.now + .seconds(20)
    while answers.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(5))
    }
    if settle > .zero { try await Task.sleep(for: settle) }
    return answers.withLock { $0 }
}

/// A channel that records where each script was evaluated: in the page world, or bound to a
/// document in the notice's world (``PageChannel/evaluateForDocument``).
final class RecordingChannel: Sendable {
    let page = Mutex<[String]>([])
    let document = Mutex<[String]>([])
    var channel: PageChannel {
        PageChannel(
            evaluate: { script in self.page.withLock { $0.append(script) } },
            evaluateForDocument: { script in self.document.withLock { $0.append(script) } })
    }
}

/// An echo task: replies with its options.
let echoTask = ClosureTask(name: "echo") { (options: JSONValue, _: CallContext) in options }

/// Waits until `condition` holds, checking every 2 ms; gives up after `limit` checks and at
/// least 30 s of wall-clock time, so a starved test pool (sanitizer runs, a loaded machine)
/// cannot run the wait out while the awaited work has had no thread yet (as issue 20's harness).
func eventually(_ limit: Int = 2000, _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(30)
    var checks = 0
    while checks < limit || clock.now < deadline {
        if condition() { return true }
        checks += 1
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// Collects traffic records of a router.
final class TrafficLog: Sendable {
    private let records = Mutex<[TrafficRecord]>([])
    init(_ router: BridgeRouter) {
        router.setTrafficObserver { [weak self] record in self?.records.withLock { $0.append(record) } }
    }
    var all: [TrafficRecord] { records.withLock { $0 } }
}

/// A value shared between a test and the tasks it registers.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }
}

/// A thread-safe counter for tests.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
