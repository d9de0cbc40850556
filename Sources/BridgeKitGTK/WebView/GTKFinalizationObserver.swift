#if WebKitGTK
import CWebKitGTK
import Synchronization

/// Tells whether a GObject (the WebKit view) has been finalized, through `g_object_weak_ref`.
/// Lets tests check that closing or dropping a ``GTKWebView`` really frees WebKit's view.
/// Thread-safe.
public final class GTKFinalizationObserver: Sendable {
    private let finalized = Atomic<Bool>(false)

    /// True once the observed object was finalized.
    public var isFinalized: Bool { finalized.load(ordering: .acquiring) }

    /// Starts observing `object` (GTK thread). The observer keeps itself alive until the notify runs.
    init(observing object: UnsafeMutablePointer<GObject>) {
        g_object_weak_ref(object, finalizationNotify, Unmanaged.passRetained(self).toOpaque())
    }

    fileprivate func markFinalized() {
        finalized.store(true, ordering: .releasing)
    }
}

/// `GWeakNotify`: `void (*)(gpointer data, GObject *where_the_object_was)`. GTK thread.
private let finalizationNotify: GWeakNotify = { data, _ in
    guard let data else { return }
    Unmanaged<GTKFinalizationObserver>.fromOpaque(data).takeRetainedValue().markFinalized()
}
#endif
