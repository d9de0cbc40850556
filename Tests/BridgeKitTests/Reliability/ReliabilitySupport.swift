import BridgeKitTesting
import Foundation
import Synchronization

@testable import BridgeKit

/// SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of xoshiro): a tiny, fast,
/// fully deterministic generator, so every property and mutation test replays exactly from its
/// seed. Not for cryptography.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// `true` with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }
}

extension BridgeRouter {
    /// Test-only view of the router's pending maps (through `@testable import`; nothing public
    /// was added for it): page calls in flight (settled ones are not) and native-to-page calls
    /// in flight.
    var pendingCountsForTesting: (calls: Int, pageCalls: Int) {
        state.withLock { ($0.calls.values.count { !$0.isSettled }, $0.pageCalls.count) }
    }

    /// Test-only: the entries of the router's call table (settled calls leave it at once).
    var callTableCountForTesting: Int {
        state.withLock { $0.calls.count }
    }
}

/// A recording fake of a web view's content controller (`WKUserContentController`,
/// `WebKitUserContentManager`). Like the real ones it retains the installed proxies strongly,
/// and it records what WebKit would turn into an exception: adding a name that is installed.
@MainActor
final class RecordingRegistry: ScriptMessageHandlerRegistry {
    enum Event: Hashable {
        case add(String)
        case remove(String)
    }

    private(set) var events: [Event] = []
    private(set) var installed: [String: MessageHandlerProxy] = [:]
    /// Names added while already installed: WebKit raises NSInvalidArgumentException (R24).
    private(set) var duplicateAdds: [String] = []

    func addScriptMessageHandler(_ proxy: MessageHandlerProxy, name: String) {
        if installed[name] != nil { duplicateAdds.append(name) }
        installed[name] = proxy
        events.append(.add(name))
    }

    func removeScriptMessageHandler(name: String) {
        installed[name] = nil
        events.append(.remove(name))
    }

    var addedNames: [String] { events.compactMap { if case .add(let name) = $0 { name } else { nil } } }
    var removedNames: [String] { events.compactMap { if case .remove(let name) = $0 { name } else { nil } } }
}

/// Reply handlers made by a test, with every answer each one gave.
final class ReplyLog: Sendable {
    private let answers = Mutex<[String: [String?]]>([:])

    /// A reply handler for the message tagged `key`; its answers are recorded under that key.
    func handler(_ key: String) -> ReplyHandler {
        answers.withLock { $0[key] = [] }
        return ReplyHandler { [self] json in answers.withLock { $0[key, default: []].append(json) } }
    }

    /// Every answer given for `key`, in order (`nil` = answered without data).
    func answers(_ key: String) -> [String?] { answers.withLock { $0[key] ?? [] } }

    /// Keys whose handler has not been answered exactly once.
    var notAnsweredOnce: [String] { answers.withLock { $0.filter { $0.value.count != 1 }.map(\.key).sorted() } }

    /// The decoded reply message given for `key`, if the answer carried one.
    func message(_ key: String) -> JSONValue? {
        guard let text = answers(key).first ?? nil else { return nil }
        return try? BridgeJSON.decode(JSONValue.self, from: Data(text.utf8))
    }
}

/// Waits until `condition` holds, yielding and sleeping briefly between checks (a bounded
/// wait for a state, never a timing assertion). Returns whether the condition held. Runs on
/// the caller's actor, so the condition may read actor-isolated state. Checks at least `tries`
/// times and for at least 30 s of wall-clock time, so a starved test pool (a sanitizer run)
/// cannot run the wait out before the awaited work ran.
func settle(tries: Int = 20_000, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(30)
    var attempt = 0
    while attempt < tries || clock.now < deadline {
        defer { attempt += 1 }
        if condition() { return true }
        if attempt % 8 == 7 {
            try? await Task.sleep(for: .microseconds(200))
        } else {
            await Task.yield()
        }
    }
    return condition()
}

/// A JSON text for `value`, as the shim posts it.
func jsonText(_ value: JSONValue) -> String {
    (try? BridgeJSON.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
}

/// Starts and stops a task from outside: `wait` suspends until `release` or cancellation.
final class Gates: Sendable {
    private struct State {
        var waiting: [String: CheckedContinuation<Void, Never>] = [:]
        var released: Set<String> = []
        var cancelled: Set<String> = []
    }

    private let state = Mutex(State())

    /// Suspends until the call `key` is released or the current task is cancelled.
    func wait(_ key: String) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.released.contains(key) || state.cancelled.contains(key) { return true }
                    state.waiting[key] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            // Runs after the cancelled flag is set; if it runs before the registration above,
            // the mark makes the registration resume at once.
            let waiting = state.withLock { state in
                state.cancelled.insert(key)
                return state.waiting.removeValue(forKey: key)
            }
            waiting?.resume()
        }
    }

    /// Lets the call `key` finish (now or when it starts waiting).
    func release(_ key: String) {
        let waiting = state.withLock { state in
            state.released.insert(key)
            return state.waiting.removeValue(forKey: key)
        }
        waiting?.resume()
    }

    /// How many calls are suspended right now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }
}

/// Options with one integer member, `a`.
struct OneNumber: Decodable, Sendable { let a: Int }

/// The tasks that read a call's options in each way the router can: typed options decoded by a
/// concurrent (`typed`), an immediate (`typed-now`) and a synchronous task (`typed-sync`), and
/// raw JSON (`raw`). Each counts its runs in `ran`; the reliability suites check that a body none
/// of them may read runs none of them.
func optionReadingTasks(_ ran: Counter) -> [any BridgeTask] {
    [
        ClosureTask(name: "typed") { (options: OneNumber, _: CallContext) in
            ran.increment()
            return options.a
        },
        ClosureTask(name: "typed-now", execution: .immediate) { (options: OneNumber, _: CallContext) in
            ran.increment()
            return options.a
        },
        SynchronousClosureTask(name: "typed-sync") { (options: OneNumber, _: CallContext) in
            ran.increment()
            return options.a
        },
        ClosureTask(name: "raw") { (options: RawJSON, _: CallContext) in
            ran.increment()
            return options
        },
    ]
}
