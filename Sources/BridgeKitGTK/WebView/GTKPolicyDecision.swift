#if WebKitGTK
import CWebKitGTK

/// A pending WebKit policy decision (`WebKitPolicyDecision`), for handlers that answer
/// ``GTKPolicyVerdict/deferred`` and decide later.
///
/// One-shot: the first ``use()`` or ``ignore()`` counts. Deallocated undecided, it ignores (fail
/// closed). Holds a reference to WebKit's decision object until decided. Thread: main actor.
@MainActor
public final class GTKPolicyDecision {
    private var decision: UnsafeMutablePointer<WebKitPolicyDecision>?

    /// True once decided (by the handler's verdict, ``use()``, ``ignore()``).
    public var isDecided: Bool { decision == nil }

    init(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>) {
        g_object_ref(gRaw(decision))
        self.decision = decision
    }

    /// Allows the navigation or response (`webkit_policy_decision_use`).
    /// - Returns: true when this was the first decision.
    @discardableResult
    public func use() -> Bool {
        guard let decision = take() else { return false }
        webkit_policy_decision_use(decision)
        g_object_unref(gRaw(decision))
        return true
    }

    /// Blocks the navigation or response (`webkit_policy_decision_ignore`).
    /// - Returns: true when this was the first decision.
    @discardableResult
    public func ignore() -> Bool {
        guard let decision = take() else { return false }
        webkit_policy_decision_ignore(decision)
        g_object_unref(gRaw(decision))
        return true
    }

    /// Gives up the WebKit object without deciding (used for ``GTKPolicyVerdict/useDefault``).
    func relinquish() {
        guard let decision = take() else { return }
        g_object_unref(gRaw(decision))
    }

    private func take() -> UnsafeMutablePointer<WebKitPolicyDecision>? {
        defer { decision = nil }
        return decision
    }

    isolated deinit {
        ignore()
    }
}
#endif
