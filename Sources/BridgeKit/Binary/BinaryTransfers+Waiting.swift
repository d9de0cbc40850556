extension BinaryTransfers {
    /// The budget a page request waiting for its claim counts against (``BinaryLimits/maxWaitingRequests``
    /// each).
    ///
    /// A waiting request is not authenticated yet: its token names nothing so far, so any frame of
    /// any origin could send one. The main frame's requests therefore never share a budget with
    /// anybody else's: a frame of another origin, or one with no origin, cannot use up the waits
    /// the main frame's binary values need (docs/protocol.md, "Binary values"; SECURITY.md).
    enum WaitingBudget: Hashable, Sendable {
        /// Requests of the origin of a main-frame call pending in the current page generation:
        /// the document whose calls may claim bytes.
        case mainFrame
        /// Every other request with an origin (another origin's frame; the main frame's own request
        /// when it arrives before the router admitted its call).
        case others
    }

    /// The budget a request with `origin` (its `Origin` header) may wait in; `nil` when it must
    /// not wait at all: no origin or an opaque one (`"null"`) can never match a claim, which is
    /// only ever made for a call with an origin.
    func waitingBudget(for origin: String?) -> WaitingBudget? {
        guard let origin, let parsed = SecurityOrigin(origin) else { return nil }
        guard let router else { return nil }
        let serialized = parsed.description
        let isMainFrame = router.state.withLock { s in
            s.calls.values.contains {
                $0.generation == s.generation && $0.source.isMainFrame
                    && $0.source.origin?.description == serialized
            }
        }
        return isMainFrame ? .mainFrame : .others
    }

    /// Whether another request may wait in `budget` now; prunes the records of requests that no
    /// longer wait (claimed, timed out, woken). Call with the state lock held.
    static func admitsWaiting(_ budget: WaitingBudget, in s: inout State, limit: Int) -> Bool {
        s.waiterBudgets = s.waiterBudgets.filter { s.waiting[$0.value.token]?[$0.key] != nil }
        return s.waiterBudgets.values.count { $0.budget == budget } < limit
    }
}
