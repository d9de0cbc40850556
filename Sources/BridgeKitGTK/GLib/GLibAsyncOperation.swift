#if WebKitGTK
import CWebKitGTK

/// One pending GIO-style asynchronous call (`..._async(…, GCancellable *, GAsyncReadyCallback, gpointer)`
/// + `..._finish`). Non-generic base so that a single C callback serves every call; see
/// ``GLibAsyncOperation`` for the typed result.
///
/// Lifetime: ``retainedUserData()`` hands one retain to the C side; the `GAsyncReadyCallback`
/// (``glibAsyncReady``) takes it back. A call that is settled early (close, cancellation) still
/// receives its callback later and then only frees what `_finish` returned.
@MainActor
class GLibAsyncCall {
    /// Passed to the asynchronous C function; cancelled on Swift task cancellation.
    let cancellable: UnsafeMutablePointer<GCancellable>
    /// Run once when the call settles (used by ``GLibPendingCalls`` to forget it).
    var onSettle: (() -> Void)?

    init() {
        cancellable = g_cancellable_new()
    }

    isolated deinit {
        g_object_unref(gRaw(cancellable))
    }

    /// A retained pointer to self for the C `user_data` argument; released by ``glibAsyncReady``.
    func retainedUserData() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }

    /// Called by ``glibAsyncReady`` with the callback's source object and result. Overridden.
    func finish(source: UnsafeMutablePointer<GObject>?, result: OpaquePointer?) {}

    /// Settles the call with an error now, if it has not settled yet. Overridden.
    func fail(_ error: GTKWebViewError) {}
}

/// The `GAsyncReadyCallback` of every ``GLibAsyncCall``:
/// `void (*)(GObject *source_object, GAsyncResult *res, gpointer user_data)`.
let glibAsyncReady: GAsyncReadyCallback = { source, result, userData in
    guard let userData else { return }
    let call = Unmanaged<GLibAsyncCall>.fromOpaque(userData).takeRetainedValue()
    let arguments = GLibCallbackArguments((source, result))
    MainActor.assumeIsolated {
        call.finish(source: arguments.value.0, result: arguments.value.1)
    }
}

/// A ``GLibAsyncCall`` whose `_finish` step produces a `Value`.
///
/// ``value()`` waits in the way the current ``GLibMainLoop/Mode`` needs: it suspends (integrated)
/// or iterates GLib on the current job until the result is there (pumping). Task cancellation
/// settles the call with ``GTKWebViewError/cancelled`` at once and cancels its `GCancellable`.
@MainActor
final class GLibAsyncOperation<Value: Sendable>: GLibAsyncCall {
    /// Turns the callback's source object and result into the value (calls the `_finish` function
    /// and frees what it returned). Always called exactly once, also after an early settle.
    typealias Finisher = @MainActor (UnsafeMutablePointer<GObject>?, OpaquePointer?) -> Result<Value, GTKWebViewError>

    private let finisher: Finisher
    private(set) var outcome: Result<Value, GTKWebViewError>?
    private var continuation: CheckedContinuation<Result<Value, GTKWebViewError>, Never>?

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

    /// Records the first outcome, resumes a waiting task and runs ``GLibAsyncCall/onSettle``.
    func settle(_ result: Result<Value, GTKWebViewError>) {
        guard outcome == nil else { return }
        outcome = result
        if let continuation {
            self.continuation = nil
            continuation.resume(returning: result)
        }
        let settled = onSettle
        onSettle = nil
        settled?()
    }

    /// Waits for the outcome (see the type's documentation).
    func value() async -> Result<Value, GTKWebViewError> {
        if let outcome { return outcome }
        let loop = GLibMainLoop.shared
        return await withTaskCancellationHandler {
            switch loop.mode {
            case .pumping:
                loop.iterate(until: { self.outcome != nil || Task.isCancelled })
                if outcome == nil { cancelNow() }
                return outcome ?? .failure(.cancelled)
            case .integrated:
                return await withCheckedContinuation { continuation in
                    if let outcome {
                        continuation.resume(returning: outcome)
                    } else {
                        self.continuation = continuation
                    }
                }
            }
        } onCancel: {
            // Any thread: wake a pumping loop (it then sees Task.isCancelled) and settle on the main actor.
            g_main_context_wakeup(nil)
            Task { @MainActor in self.cancelNow() }
        }
    }

    /// Cancels the GLib call and settles with ``GTKWebViewError/cancelled`` (main actor only).
    private func cancelNow() {
        g_cancellable_cancel(cancellable)
        settle(.failure(.cancelled))
    }
}

/// The calls a web view or cookie store has in flight, so that closing can settle them all.
@MainActor
final class GLibPendingCalls {
    private var calls: [ObjectIdentifier: GLibAsyncCall] = [:]

    /// Remembers `call` until it settles.
    func add(_ call: GLibAsyncCall) {
        let key = ObjectIdentifier(call)
        calls[key] = call
        call.onSettle = { [weak self] in
            self?.calls[key] = nil
        }
    }

    /// Settles every pending call with `error` and cancels its GLib operation.
    func failAll(_ error: GTKWebViewError) {
        let pending = calls.values
        calls.removeAll()
        for call in pending {
            call.onSettle = nil
            g_cancellable_cancel(call.cancellable)
            call.fail(error)
        }
    }

    /// Number of calls still waiting for their result.
    var count: Int { calls.count }
}
#endif
