#if WebKitGTK
import CWebKitGTK
import Synchronization

/// One running GIO-style asynchronous call (`..._async(…, GCancellable *, GAsyncReadyCallback, gpointer)`
/// + `..._finish`). Non-generic base so that a single C callback (``glibAsyncReady``) serves every
/// call; see ``GLibAsyncOperation`` for the typed result. Thread-safe.
///
/// Lifetime: ``retainedUserData()`` hands one retain to the C side; the callback takes it back. A
/// call settled early (close, cancellation) still receives its callback later and then only frees
/// what `_finish` returned.
class GLibAsyncCall: @unchecked Sendable {
    /// Passed to the asynchronous C function; cancelled (on the GTK thread) on Swift task
    /// cancellation and on close.
    let cancellable: GPointer<GCancellable>

    init() {
        cancellable = GPointer(g_cancellable_new())
    }

    deinit {
        g_object_unref(cancellable.raw)  // GObject refcounting is thread-safe
    }

    /// A retained pointer to self for the C `user_data` argument; released by ``glibAsyncReady``.
    func retainedUserData() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }

    /// Called on the GTK thread with the callback's source object and result. Overridden.
    func finish(source: UnsafeMutablePointer<GObject>?, result: OpaquePointer?) {}

    /// Settles the call with an error now, if it has not settled yet. Overridden.
    func fail(_ error: GTKWebViewError) {}

    /// Cancels the C operation (on the GTK thread, later) and settles with `error`.
    ///
    /// The hop keeps this call, and so its `GCancellable`, alive until it has run: the caller may
    /// drop its last reference at once (closing drops the running list), and the C operation may
    /// have finished and released its own reference already. Without it the hop cancelled a freed
    /// object (GLib criticals on "an instance with invalid (NULL) class pointer", then a crash).
    func cancel(with error: GTKWebViewError) {
        GTKThread.post { [self] in g_cancellable_cancel(cancellable.pointer) }
        fail(error)
    }
}

/// The `GAsyncReadyCallback` of every ``GLibAsyncCall``:
/// `void (*)(GObject *source_object, GAsyncResult *res, gpointer user_data)`. Runs on the GTK thread.
let glibAsyncReady: GAsyncReadyCallback = { source, result, userData in
    guard let userData else { return }
    Unmanaged<GLibAsyncCall>.fromOpaque(userData).takeRetainedValue().finish(source: source, result: result)
}

/// A ``GLibAsyncCall`` whose `_finish` step produces a `Value`. ``value()`` suspends until the
/// callback (on the GTK thread) or an early settle provides the outcome; Swift task cancellation
/// settles with ``GTKWebViewError/cancelled`` at once and cancels the `GCancellable`.
final class GLibAsyncOperation<Value: Sendable>: GLibAsyncCall, @unchecked Sendable {
    /// Turns the callback's source object and result into the value (calls the `_finish` function
    /// and frees what it returned). Runs on the GTK thread, exactly once, also after an early settle.
    typealias Finisher = @Sendable (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Result<Value, GTKWebViewError>

    private enum State {
        case waiting(CheckedContinuation<Result<Value, GTKWebViewError>, Never>?)
        case settled(Result<Value, GTKWebViewError>)
    }

    private let finisher: Finisher
    private let state = Mutex<State>(.waiting(nil))
    private let onSettle = Mutex<(@Sendable () -> Void)?>(nil)

    init(finisher: @escaping Finisher) {
        self.finisher = finisher
        super.init()
    }

    override func finish(source: UnsafeMutablePointer<GObject>?, result: OpaquePointer?) {
        settle(finisher(source, result))
    }

    override func fail(_ error: GTKWebViewError) {
        settle(.failure(error))
    }

    /// Sets a function run once when the call settles (used by ``GLibRunningOperations``).
    func setOnSettle(_ action: (@Sendable () -> Void)?) {
        onSettle.withLock { $0 = action }
    }

    /// Records the first outcome and resumes a waiting task.
    func settle(_ result: Result<Value, GTKWebViewError>) {
        let waiting: CheckedContinuation<Result<Value, GTKWebViewError>, Never>?? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return .none }
            state = .settled(result)
            return .some(continuation)
        }
        guard case .some(let continuation) = waiting else { return }
        continuation?.resume(returning: result)
        let action = onSettle.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Waits for the outcome.
    func value() async -> Result<Value, GTKWebViewError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let settled: Result<Value, GTKWebViewError>? = state.withLock { state in
                    switch state {
                    case .settled(let result):
                        return result
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    }
                }
                if let settled {
                    continuation.resume(returning: settled)
                }
            }
        } onCancel: {
            cancel(with: .cancelled)
        }
    }
}

/// The calls a web view or cookie store has in flight, so that closing can settle them all.
final class GLibRunningOperations: Sendable {
    private let calls = Mutex<[ObjectIdentifier: GLibAsyncCall]>([:])

    /// Remembers `call` until it settles.
    func add<Value>(_ call: GLibAsyncOperation<Value>) {
        let key = ObjectIdentifier(call)
        calls.withLock { $0[key] = call }
        call.setOnSettle { [weak self] in
            _ = self?.calls.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// Settles every running call with `error` and cancels its C operation.
    func failAll(_ error: GTKWebViewError) {
        let running = calls.withLock { calls in
            defer { calls.removeAll() }
            return Array(calls.values)
        }
        for call in running {
            call.cancel(with: error)
        }
    }

    /// Number of calls still waiting for their result.
    var count: Int { calls.withLock { $0.count } }
}
#endif
