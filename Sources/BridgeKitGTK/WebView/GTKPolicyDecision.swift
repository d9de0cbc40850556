#if WebKitGTK
import CWebKitGTK
import Synchronization

/// An undecided WebKit policy decision (`WebKitPolicyDecision`). ``GTKWebView`` hands it to
/// ``GTKWebView/onPolicyDecision`` and applies the returned ``GTKPolicyVerdict``; with
/// ``GTKPolicyVerdict/deferred`` the handler keeps it and decides later.
///
/// One-shot: the first decision counts. Deallocated undecided, it ignores (fail closed).
/// Holds a reference to WebKit's decision object until decided. Thread-safe: decide from any
/// thread; the decision is handed to WebKit on the GTK thread.
public final class GTKPolicyDecision: Sendable {
    private let decision: Mutex<GPointer<WebKitPolicyDecision>?>
    /// For responses: whether WebKit can show the MIME type (what its default decision uses).
    private let canShowMIMEType: Bool

    /// References WebKit's decision object. GTK thread.
    init(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>, canShowMIMEType: Bool) {
        g_object_ref(gRaw(decision))
        self.decision = Mutex(GPointer(decision))
        self.canShowMIMEType = canShowMIMEType
    }

    /// True once decided.
    public var isDecided: Bool { decision.withLock { $0 == nil } }

    /// Allows the navigation or response (`webkit_policy_decision_use`).
    /// - Returns: true when this was the first decision.
    @discardableResult
    public func use() -> Bool {
        apply { webkit_policy_decision_use($0) }
    }

    /// Blocks the navigation or response (`webkit_policy_decision_ignore`).
    /// - Returns: true when this was the first decision.
    @discardableResult
    public func ignore() -> Bool {
        apply { webkit_policy_decision_ignore($0) }
    }

    /// What WebKit does by default: navigations are used; a response is used when WebKit can show
    /// its MIME type and ignored otherwise (this wrapper never starts downloads).
    /// - Returns: true when this was the first decision.
    @discardableResult
    public func useDefault() -> Bool {
        canShowMIMEType ? use() : ignore()
    }

    private func apply(_ action: @escaping @Sendable (UnsafeMutablePointer<WebKitPolicyDecision>) -> Void) -> Bool {
        guard let decision = take() else { return false }
        GTKThread.post {
            action(decision.pointer)
            g_object_unref(decision.raw)
        }
        return true
    }

    private func take() -> GPointer<WebKitPolicyDecision>? {
        decision.withLock { stored in
            defer { stored = nil }
            return stored
        }
    }

    deinit {
        guard let decision = take() else { return }
        GTKThread.post {
            webkit_policy_decision_ignore(decision.pointer)
            g_object_unref(decision.raw)
        }
    }
}
#endif
