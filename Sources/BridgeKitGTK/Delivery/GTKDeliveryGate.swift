#if WebKitGTK
import BridgeKit
import CWebKitGTK
import Synchronization

/// The flow control of one web view's outbound bodies on WebKitGTK (`DeliveryWindow`): the
/// response pump (``GTKResponsePump``) asks it before it hands a chunk to WebKit, and it confirms
/// what the web process took with a barrier, an evaluation of `0` in a script world of its own
/// (`webkit_web_view_evaluate_javascript`), which WebKit sends to the web process behind the
/// chunks already queued for it.
///
/// One gate per web view, kept as GObject data of the view (``of(_:)``) and shared by its asset
/// scheme and byte transport, so their bodies together stay within ``budget``. It holds the view
/// weakly (`GWeakRef`): a barrier sent after the view is gone returns at once.
///
/// Thread: GTK thread (every call and every admission callback).
final class GTKDeliveryGate: Sendable {
    /// The most bytes of a view's bodies handed to WebKit and not yet taken by its web process.
    /// Large enough that a barrier's round trip (issued at half of it) does not stall a transfer,
    /// small enough that an app with several views holds little (docs/performance.md).
    static let budget = 8 << 20

    /// The script world of the barrier: the page's own globals cannot change what it runs.
    private static let world = "bridgekit-delivery"

    /// The GObject data key of a view's gate (a retained gate).
    private static let viewKey = "bridgekit-delivery-gate"

    private struct State {
        var window = DeliveryWindow(budget: GTKDeliveryGate.budget)
        var nextID = 0
        var waiting: [Int: @Sendable () -> Void] = [:]
        /// The number of the barrier in flight (for its overdue timer); nil when none is.
        var barrierInFlight: Int?
        var barriersSent = 0
    }

    private let state = Mutex(State())
    /// The view, weakly (a `GWeakRef`, thread-safe).
    private let view: GWeakView

    private init(view: UnsafeMutablePointer<WebKitWebView>) {
        self.view = GWeakView(view)
    }

    /// The gate of `view`, made the first time (GTK thread). It lives as long as the view, or
    /// longer while a pump still holds it.
    static func of(_ view: UnsafeMutablePointer<WebKitWebView>) -> GTKDeliveryGate {
        let object: UnsafeMutablePointer<GObject> = gCast(gRaw(view))
        if let data = g_object_get_data(object, viewKey) {
            return Unmanaged<GTKDeliveryGate>.fromOpaque(data).takeUnretainedValue()
        }
        let gate = GTKDeliveryGate(view: view)
        g_object_set_data_full(object, viewKey, Unmanaged.passRetained(gate).toOpaque(), releaseGate)
        return gate
    }

    /// Asks to hand `bytes` to WebKit. `admitted` runs when there is room: at once (inside this
    /// call) or later, when a barrier returns (GTK thread, both).
    /// - Returns: the request's id, for ``withdraw(_:)``.
    @discardableResult
    func admit(_ bytes: Int, then admitted: @escaping @Sendable () -> Void) -> Int {
        let (id, actions, ready) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            let actions = state.window.request(id: id, bytes: bytes)
            if !actions.admitted.contains(id) { state.waiting[id] = admitted }
            return (id, actions, Self.take(actions.admitted, from: &state))
        }
        perform(actions, ready: ready)
        if actions.admitted.contains(id) { admitted() }
        return id
    }

    /// Request `id` no longer waits: its response ended first (the page went away).
    func withdraw(_ id: Int) {
        let (actions, ready) = state.withLock { state in
            state.waiting[id] = nil
            let actions = state.window.withdraw(id: id)
            return (actions, Self.take(actions.admitted, from: &state))
        }
        perform(actions, ready: ready)
    }

    /// Bytes handed to WebKit and not yet confirmed (for tests).
    var unconfirmedBytes: Int64 { state.withLock { $0.window.unconfirmedBytes } }

    /// The callbacks of `ids` that wait, removed.
    private static func take(_ ids: [Int], from state: inout State) -> [@Sendable () -> Void] {
        ids.compactMap { state.waiting.removeValue(forKey: $0) }
    }

    private func perform(_ actions: DeliveryWindow.Actions, ready: [@Sendable () -> Void]) {
        if actions.issuesBarrier { sendBarrier() }
        for callback in ready { callback() }
    }

    /// Sends the barrier; ``barrierReturned()`` when WebKit answers it, or at once without a view.
    /// While it goes unanswered, ``barrierOverdue(_:)`` runs every `DeliveryWindow.stallInterval`.
    private func sendBarrier() {
        guard let strong = view.strong() else {
            barrierReturned()
            return
        }
        defer { g_object_unref(gRaw(strong)) }
        let serial = state.withLock { state in
            state.barriersSent += 1
            state.barrierInFlight = state.barriersSent
            return state.barriersSent
        }
        let data = Unmanaged.passRetained(self).toOpaque()
        webkit_web_view_evaluate_javascript(strong, "0", 1, Self.world, nil, nil, barrierAnswered, data)
        let interval = DeliveryWindow.stallInterval.components
        let milliseconds = guint(interval.seconds * 1000 + interval.attoseconds / 1_000_000_000_000_000)
        let tick = Unmanaged.passRetained(OverdueTick(gate: self, serial: serial)).toOpaque()
        g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, overdueTicked, tick, releaseTick)
    }

    /// The barrier answered (or failed: the web process or the view is gone).
    fileprivate func barrierReturned() {
        let (actions, ready) = state.withLock { state in
            state.barrierInFlight = nil
            let actions = state.window.barrierReturned()
            return (actions, Self.take(actions.admitted, from: &state))
        }
        perform(actions, ready: ready)
    }

    /// Barrier `serial`'s stall interval passed.
    /// - Returns: whether it is still in flight (the timer then keeps ticking).
    fileprivate func barrierOverdue(_ serial: Int) -> Bool {
        let overdue = state.withLock { state -> (DeliveryWindow.Actions, [@Sendable () -> Void])? in
            guard state.barrierInFlight == serial else { return nil }
            let actions = state.window.barrierOverdue()
            return (actions, Self.take(actions.admitted, from: &state))
        }
        guard let (actions, ready) = overdue else { return false }
        perform(actions, ready: ready)
        return true
    }
}

/// `GDestroyNotify` of a view's gate.
private let releaseGate: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    Unmanaged<GTKDeliveryGate>.fromOpaque(pointer).release()
}

/// `GAsyncReadyCallback` of a barrier (GTK thread): frees the result, then confirms.
private let barrierAnswered: GAsyncReadyCallback = { source, result, data in
    guard let data else { return }
    let gate = Unmanaged<GTKDeliveryGate>.fromOpaque(data).takeRetainedValue()
    if let source, let result {
        var error: UnsafeMutablePointer<GError>?
        if let value = webkit_web_view_evaluate_javascript_finish(gCast(gRaw(source)), result, &error) {
            g_object_unref(gRaw(value))
        }
        if let error { g_error_free(error) }
    }
    gate.barrierReturned()
}

/// The overdue timer's data: a barrier of a gate.
private final class OverdueTick: Sendable {
    let gate: GTKDeliveryGate
    let serial: Int
    init(gate: GTKDeliveryGate, serial: Int) {
        self.gate = gate
        self.serial = serial
    }
}

/// `GSourceFunc` of a barrier's overdue timer (GTK thread): ticks while the barrier is in flight.
private let overdueTicked: GSourceFunc = { data in
    guard let data else { return 0 }
    let tick = Unmanaged<OverdueTick>.fromOpaque(data).takeUnretainedValue()
    return tick.gate.barrierOverdue(tick.serial) ? 1 : 0  // G_SOURCE_CONTINUE : G_SOURCE_REMOVE
}

/// `GDestroyNotify` of an overdue timer's data.
private let releaseTick: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    Unmanaged<OverdueTick>.fromOpaque(pointer).release()
}

/// A weak reference to a web view (`GWeakRef`, which GLib makes thread-safe).
private final class GWeakView: @unchecked Sendable {
    private let reference = UnsafeMutablePointer<GWeakRef>.allocate(capacity: 1)

    init(_ view: UnsafeMutablePointer<WebKitWebView>) {
        reference.initialize(to: GWeakRef())
        g_weak_ref_init(reference, gRaw(view))
    }

    deinit {
        g_weak_ref_clear(reference)
        reference.deallocate()
    }

    /// The view with a new reference (the caller unrefs it), or nil once it was finalized.
    func strong() -> UnsafeMutablePointer<WebKitWebView>? {
        g_weak_ref_get(reference).map { gCast($0) }
    }
}
#endif
