#if WebKitGTK
import Dispatch
import Synchronization

/// Something WebKit reported on the GTK thread, on its way to a ``GTKWebView`` on the main actor.
enum GTKWebViewEvent: Sendable {
    case title(String?)
    case progress(Double)
    case load(GTKLoadEvent)
    case loadFailure(GTKLoadFailure)
    case policy(GTKPolicyRequest, GTKPolicyDecision)
    case webProcessTerminated(String)
    case scriptMessage(name: String, message: GTKScriptMessage)
}

/// Carries events from the GTK thread to web views on the main actor, in order.
///
/// The GTK thread appends to one process-wide queue; the first event after the queue ran empty
/// schedules one main-actor task that delivers everything queued by then. WebKit callbacks
/// therefore never wait for the main actor (so main-actor code may wait for the GTK thread without
/// deadlock), and handlers run as ordinary main-actor code. ``GLibMainLoop/iterate(until:timeout:)``
/// also delivers queued events synchronously while it blocks the main actor.
final class GTKEventQueue: Sendable {
    private struct State {
        var items: [(GTKViewReference, GTKWebViewEvent)] = []
        var drainScheduled = false
        var waiterBlocked = false
    }

    /// The process-wide queue.
    static let shared = GTKEventQueue()

    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)

    /// Queues `event` for the view behind `reference` (any thread).
    func post(_ event: GTKWebViewEvent, to reference: GTKViewReference) {
        let (schedule, wake) = state.withLock { state in
            state.items.append((reference, event))
            let schedule = !state.drainScheduled
            state.drainScheduled = true
            let wake = state.waiterBlocked
            state.waiterBlocked = false
            return (schedule, wake)
        }
        if wake { wakeup.signal() }
        if schedule {
            Task { @MainActor in self.deliver() }
        }
    }

    /// Delivers every queued event to its view (views that are gone or closed drop theirs).
    @MainActor
    func deliver() {
        let items = state.withLock { state in
            defer {
                state.items.removeAll()
                state.drainScheduled = false
            }
            return state.items
        }
        for (reference, event) in items {
            reference.view?.handle(event)
        }
    }

    /// Blocks the calling (main-actor) thread until an event is posted or `nanoseconds` pass.
    @MainActor
    func waitForEvent(nanoseconds: UInt64) {
        let alreadyQueued = state.withLock { state in
            if !state.items.isEmpty { return true }
            state.waiterBlocked = true
            return false
        }
        if alreadyQueued { return }
        _ = wakeup.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, UInt64(Int.max)))))
        state.withLock { $0.waiterBlocked = false }
        // A signal that raced with the timeout may be left over; consume it so it cannot end a later wait early.
        while wakeup.wait(timeout: .now()) == .success {}
    }
}

/// A weak reference to a view that is read from any thread (weak loads are atomic in Swift; the
/// reference is set once, at creation, before any event can be posted).
final class GTKViewReference: @unchecked Sendable {
    private weak var storage: GTKWebView?

    /// The view, nil once it is deallocated.
    var view: GTKWebView? { storage }

    /// Sets the view (once, right after creation, before signals are connected).
    func set(_ view: GTKWebView) {
        storage = view
    }
}
#endif
