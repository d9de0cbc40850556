#if WebKitGTK
/// The answer of ``GTKWebView/onPolicyDecision`` to a `decide-policy` signal.
public enum GTKPolicyVerdict: Sendable, Equatable {
    /// Let WebKit do what it does by default (the handler returns FALSE).
    case useDefault
    /// Allow: `webkit_policy_decision_use`.
    case use
    /// Block: `webkit_policy_decision_ignore` (a blocked navigation produces no load events).
    case ignore
    /// Decide later through the ``GTKPolicyDecision`` passed to the handler, which the handler must
    /// keep; if it is deallocated undecided, the decision is `ignore` (fail closed).
    case deferred
}
#endif
