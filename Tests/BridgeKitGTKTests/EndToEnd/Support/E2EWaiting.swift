#if WebKitGTK
import Synchronization

/// Safety net for every end-to-end wait: generous, so it only ends a hung test (never a timing
/// assertion).
let e2eDeadline: Duration = .seconds(20)

/// A value shared between the test and tasks or WebKit callbacks on other threads.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    /// The current value.
    var value: Value { storage.withLock { $0 } }

    /// Replaces the value.
    func set(_ value: Value) {
        storage.withLock { $0 = value }
    }

    /// Changes the value in place and returns what `body` returns.
    @discardableResult
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R {
        storage.withLock { body(&$0) }
    }
}

/// Why an end-to-end helper gave up.
enum E2EError: Error, CustomStringConvertible {
    /// A wait reached its deadline; the text says what it waited for.
    case timedOut(String)
    /// A page expression gave no value or a value that does not decode.
    case unexpectedValue(String)

    var description: String {
        switch self {
        case .timedOut(let what): "timed out waiting for \(what)"
        case .unexpectedValue(let what): "unexpected page value: \(what)"
        }
    }
}

/// Waits until `condition` holds or `timeout` passes, checking it every `interval` and sleeping in
/// between (the main actor stays free).
///
/// BridgeKitGTK runs WebKit on its own GTK thread and delivers WebKit's events to the main actor as
/// tasks; the router's replies reach the page through main-actor script evaluations. Both need the
/// main actor, so tests wait by suspending, never by blocking it.
/// - Returns: whether `condition` holds (false: the deadline passed first).
@MainActor
func eventually(
    timeout: Duration = e2eDeadline, interval: Duration = .milliseconds(2), _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while !condition() {
        if clock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
    return true
}

/// Lets WebKit and the router work for `duration` (for checking that something does NOT happen).
@MainActor
func idle(_ duration: Duration) async {
    try? await Task.sleep(for: duration)
}

/// Runs `operation` (a native call that needs the page: `callPage`, `emit`, cookie syncs) in its
/// own task with a deadline, so a lost answer fails the test instead of hanging it.
/// - Throws: what `operation` threw; ``E2EError/timedOut(_:)`` after `timeout` (the operation is
///   cancelled then).
@MainActor
func withDeadline<T: Sendable>(
    _ what: String, timeout: Duration = e2eDeadline, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Locked<Result<T, any Error>?>(nil)
    let task = Task.detached {
        let result: Result<T, any Error>
        do {
            result = .success(try await operation())
        } catch {
            result = .failure(error)
        }
        outcome.set(result)
    }
    guard await eventually(timeout: timeout, { outcome.value != nil }) else {
        task.cancel()
        throw E2EError.timedOut(what)
    }
    guard let result = outcome.value else { throw E2EError.timedOut(what) }
    return try result.get()
}
#endif
