extension BinaryTransfers {
    /// How many times ``BinaryLimits/maxWaitingRequests`` the requests of all origins but the
    /// main frame's may wait for their claim together: a bound on what waiting requests hold
    /// (on Apple platforms WebKit hands each body over whole, and it lives while it waits).
    static let othersFactor = 4

    /// The budget a page request waiting for its claim counts against: its origin's, at most
    /// ``BinaryLimits/maxWaitingRequests`` requests each.
    ///
    /// A waiting request is not authenticated yet: its token names nothing so far, so any frame of
    /// any origin could send one. Each origin therefore waits in a budget of its own, so that a
    /// frame of another origin cannot use up the waits the main frame's binary values need
    /// (docs/protocol.md, "Binary values"; SECURITY.md). All origins but the main frame's wait
    /// at most ``BinaryTransfers/othersFactor`` times that many together; the main frame's origin is the origin
    /// of a main-frame call pending in the current page generation (the page's request may also
    /// arrive before the router admitted its call: it then counts as any other origin).
    struct WaitingBudget: Hashable, Sendable {
        /// The request's origin, serialized.
        var origin: String
        /// Whether a main-frame call of this origin is pending in the current page generation.
        var isMainFrame: Bool
    }

    /// The budget a request with `origin` (its `Origin` header) may wait in; `nil` when it must
    /// not wait at all: no origin or an opaque one (`"null"`) can never match a claim, which is
    /// only ever made for a call with an origin.
    func waitingBudget(for origin: String?) -> WaitingBudget? {
        guard let origin, let parsed = SecurityOrigin(origin) else { return nil }
        let serialized = parsed.description
        // The router is asked only when the answer matters (the others' budget is spent).
        let limit = limits.maxWaitingRequests
        let matters = state.withLock { s in
            s.waiterBudgets.values.count { !$0.budget.isMainFrame } >= limit * Self.othersFactor
        }
        guard matters else { return WaitingBudget(origin: serialized, isMainFrame: false) }
        guard let router else { return nil }
        let isMainFrame = router.state.withLock { s in
            s.calls.values.contains {
                $0.generation == s.generation && $0.source.isMainFrame
                    && $0.source.origin?.description == serialized
            }
        }
        return WaitingBudget(origin: serialized, isMainFrame: isMainFrame)
    }

    /// Whether another request may wait in `budget` now; prunes the records of requests that no
    /// longer wait (claimed, timed out, woken). Call with the state lock held.
    static func admitsWaiting(_ budget: WaitingBudget, in s: inout State, limit: Int) -> Bool {
        s.waiterBudgets = s.waiterBudgets.filter { s.waiting[$0.value.token]?[$0.key] != nil }
        let waiting = s.waiterBudgets.values
        guard waiting.count(where: { $0.budget.origin == budget.origin }) < limit else { return false }
        return budget.isMainFrame || waiting.count(where: { !$0.budget.isMainFrame }) < limit * othersFactor
    }
}
