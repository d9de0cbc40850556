#if WebKitGTK
import CWebKitGTK

/// The Swift side of one GObject signal connection: a weak link to the object that handles it
/// plus a tag (e.g. the script message handler's name). Passed to C as `user_data` through
/// `Unmanaged` (retained once per connection, released by the connection's destroy notify), never
/// captured. Only touched on the GTK thread.
final class SignalTarget {
    /// The object the signal is for; nil once it is gone (callbacks then do nothing).
    weak var owner: AnyObject?
    /// Extra routing information for the callback.
    let tag: String

    init(owner: AnyObject, tag: String = "") {
        self.owner = owner
        self.tag = tag
    }

    /// Recovers the target from a callback's `user_data` without changing its retain count.
    static func from(_ userData: UnsafeMutableRawPointer?) -> SignalTarget? {
        guard let userData else { return nil }
        return Unmanaged<SignalTarget>.fromOpaque(userData).takeUnretainedValue()
    }
}

/// `GClosureNotify` of every connection: `void (*)(gpointer data, GClosure *closure)`.
/// GLib calls it when the handler is disconnected or the instance is finalized.
private let releaseSignalTarget: GClosureNotify = { data, _ in
    if let data {
        Unmanaged<SignalTarget>.fromOpaque(data).release()
    }
}

/// The signal handlers one object connected, so it can disconnect them all (on close).
/// GTK thread only.
final class SignalConnections {
    private struct Connection {
        let instance: UnsafeMutableRawPointer
        let id: gulong
    }

    private var connections: [Connection] = []

    /// Connects `callback` (a `@convention(c)` function cast with ``gCallback(_:)``, whose signature
    /// must match the signal) to `signal` of `instance` with `target` as user data.
    /// - Returns: the handler id, or 0 when GLib refused (unknown signal); the target is then released.
    @discardableResult
    func connect(
        _ instance: UnsafeMutableRawPointer, signal: String, callback: GCallback, target: SignalTarget
    ) -> gulong {
        let data = Unmanaged.passRetained(target).toOpaque()
        let id = g_signal_connect_data(instance, signal, callback, data, releaseSignalTarget, GConnectFlags(0))
        if id == 0 {
            Unmanaged<SignalTarget>.fromOpaque(data).release()
        } else {
            connections.append(Connection(instance: instance, id: id))
        }
        return id
    }

    /// Disconnects one handler returned by ``connect(_:signal:callback:target:)`` (0 is ignored).
    func disconnect(_ id: gulong) {
        guard id != 0, let index = connections.firstIndex(where: { $0.id == id }) else { return }
        let connection = connections.remove(at: index)
        if g_signal_handler_is_connected(connection.instance, connection.id) != 0 {
            g_signal_handler_disconnect(connection.instance, connection.id)
        }
    }

    /// Disconnects every handler (their destroy notifies release the targets). Call it while the
    /// instances are still alive.
    func disconnectAll() {
        let all = connections
        connections.removeAll()
        for connection in all where g_signal_handler_is_connected(connection.instance, connection.id) != 0 {
            g_signal_handler_disconnect(connection.instance, connection.id)
        }
    }

    /// Number of connected handlers.
    var count: Int { connections.count }
}
#endif
