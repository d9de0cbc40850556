#if WebKitGTK
import CWebKitGTK

/// Tells whether a GObject (the WebKit view) has been finalized, through `g_object_weak_ref`.
/// Lets tests check that closing or dropping a ``GTKWebView`` really frees WebKit's view.
/// Thread: main actor (the weak-ref notify runs on the GTK thread).
@MainActor
public final class GTKFinalizationObserver {
    /// True once the observed object was finalized.
    public private(set) var isFinalized = false

    /// Starts observing `object`. The observer keeps itself alive until the notify runs.
    init(observing object: UnsafeMutablePointer<GObject>) {
        g_object_weak_ref(object, finalizationNotify, Unmanaged.passRetained(self).toOpaque())
    }

    fileprivate func markFinalized() {
        isFinalized = true
    }
}

/// `GWeakNotify`: `void (*)(gpointer data, GObject *where_the_object_was)`.
private let finalizationNotify: GWeakNotify = { data, _ in
    guard let data else { return }
    let observer = Unmanaged<GTKFinalizationObserver>.fromOpaque(data).takeRetainedValue()
    MainActor.assumeIsolated {
        observer.markFinalized()
    }
}
#endif
