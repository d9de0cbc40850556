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

/// Carries events from the GTK thread to web views on the main actor, each view's in order.
///
/// The GTK thread appends to one process-wide queue; the first event after the queue ran empty
/// schedules a main-actor task that delivers at most ``maxEventsPerTurn`` events, taking the
/// views in turns (``Turns``), and schedules another while events are left. WebKit callbacks
/// therefore never wait for the main actor (so main-actor code may wait for the GTK thread without
/// deadlock), handlers run as ordinary main-actor code, and a view whose page floods it holds up
/// another view's events by at most one event per turn. ``GLibMainLoop/iterate(until:timeout:)``
/// also delivers queued events synchronously while it blocks the main actor.
final class GTKEventQueue: Sendable {
    private struct State {
        var items = Turns<ObjectIdentifier, (GTKViewReference, GTKWebViewEvent)>()
        /// The events taken for delivery and not delivered yet, from `batchHead`: a handler that
        /// waits synchronously (``GLibMainLoop/iterate(until:timeout:)``) delivers these first,
        /// so a view's events keep their order (attack 21).
        var batch: [(GTKViewReference, GTKWebViewEvent)] = []
        var batchHead = 0
        var drainScheduled = false
        var waiterBlocked = false

        /// The next event of the batch, if any.
        mutating func nextInBatch() -> (GTKViewReference, GTKWebViewEvent)? {
            guard batchHead < batch.count else { return nil }
            let next = batch[batchHead]
            batchHead += 1
            if batchHead == batch.count {
                batch.removeAll(keepingCapacity: true)
                batchHead = 0
            }
            return next
        }
    }

    /// The most events one main-actor task delivers; then it yields to the main actor's other
    /// work and a new task goes on.
    static let maxEventsPerTurn = 64

    /// The process-wide queue.
    static let shared = GTKEventQueue()

    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)

    /// Queues `event` for the view behind `reference` (any thread).
    func post(_ event: GTKWebViewEvent, to reference: GTKViewReference) {
        let (schedule, wake) = state.withLock { state in
            state.items.append((reference, event), of: ObjectIdentifier(reference))
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

    /// Delivers at most ``maxEventsPerTurn`` queued events to their views, the views in turns
    /// (views that are gone or closed drop theirs), and schedules the next delivery while events
    /// are left.
    @MainActor
    func deliver() {
        let more = state.withLock { state -> Bool in
            // A delivery is under way (this is a handler's synchronous wait): finish its batch first.
            guard state.batch.isEmpty else { return false }
            state.batch = state.items.take(upTo: Self.maxEventsPerTurn)
            state.batchHead = 0
            let more = !state.items.isEmpty
            state.drainScheduled = more
            return more
        }
        if more {
            Task { @MainActor in self.deliver() }
        }
        while let (reference, event) = state.withLock({ $0.nextInBatch() }) {
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
