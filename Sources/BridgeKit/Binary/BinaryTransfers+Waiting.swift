extension BinaryTransfers {
    /// How many times ``BinaryLimits/maxWaitingRequests`` the requests of all origins but the
    /// main frame's may wait for their claim together: a bound on what waiting requests hold
    /// (on Apple platforms WebKit hands each body over whole, and it lives while it waits).
    static let othersFactor = 4

    /// The budget a page request waiting for its claim counts against: its origin's, at most
    /// ``BinaryLimits/maxWaitingRequests`` requests each.
    ///
    /// A waiting request is not authenticated yet: its token names nothing so far. It may wait
    /// only when the router admitted a call of its origin in the current page generation (only a
    /// call's task can claim a token, for its own origin), and each origin waits in a budget of its
    /// own, so that a frame of another origin cannot use up the waits the main frame's binary
    /// values need (docs/protocol.md, "Binary values"; SECURITY.md). All origins but the main
    /// frame's wait at most ``BinaryTransfers/othersFactor`` times that many together; the main
    /// frame's origin is the origin of a main-frame call pending in the current page generation.
    struct WaitingBudget: Hashable, Sendable {
        /// The request's origin, serialized.
        var origin: String
        /// Whether a main-frame call of this origin is pending in the current page generation.
        var isMainFrame: Bool
    }

    /// Whether, and in which budget, a page request may wait for its claim.
    enum WaitingAdmission {
        /// It may wait, in this budget.
        case budget(WaitingBudget)
        /// Not now: the router has admitted no call of its origin in the current page generation,
        /// so no claim can come for it yet. The page's own request may come before the router
        /// admitted its document's first call (WebKitGTK may deliver it first); it is answered
        /// `no_room` and sent again.
        case noCallYet
        /// Never: no origin or an opaque one (`"null"`) can never match a claim, which is only ever
        /// made for a call with an origin.
        case never
    }

    /// Whether a request with `origin` (its `Origin` header) may wait for its claim, and where: it
    /// may when the router admitted a call of its origin in the current document
    /// (`RouterState.callingOrigins`) or a call of its origin is pending in it (the record keeps
    /// at most 64 origins, which frames of other origins may fill first).
    ///
    /// Bodies of frames whose origin called nothing in the current document (another origin's
    /// frame the app does not let call, made-up tokens) are answered at once, so the app's
    /// process never holds them for the wait (WebKit hands it each body whole).
    func waitingAdmission(for origin: String?) -> WaitingAdmission {
        guard let origin, let parsed = SecurityOrigin(origin), let router else { return .never }
        let (called, isMainFrame) = router.state.withLock { s -> (Bool, Bool) in
            let recorded = s.callingOrigins.contains(parsed)
            // The record is bounded (`RouterState.maxCallingOrigins`): frames of other origins
            // that called first may have filled it, so then an origin with a call pending in the
            // document waits whether or not the record kept it. Otherwise an origin it lacks
            // called nothing, and its request costs no look at the calls.
            guard recorded || s.callingOrigins.count >= RouterState.maxCallingOrigins else { return (false, false) }
            var pending = false
            for call in s.calls.values where call.generation == s.generation && call.source.origin == parsed {
                pending = true
                if call.source.isMainFrame { return (true, true) }
            }
            return (recorded || pending, false)
        }
        guard called else { return .noCallYet }
        return .budget(WaitingBudget(origin: parsed.description, isMainFrame: isMainFrame))
    }

    /// Whether another request may wait in `budget` now; prunes the records of requests that no
    /// longer wait (claimed, timed out, woken). Call with the state lock held.
    static func admitsWaiting(_ budget: WaitingBudget, in s: inout State, limit: Int) -> Bool {
        s.waiterBudgets = s.waiterBudgets.filter { s.waiting[$0.value.token]?[$0.key] != nil }
        let waiting = s.waiterBudgets.values
        guard waiting.count(where: { $0.budget.origin == budget.origin }) < limit else { return false }
        return budget.isMainFrame || waiting.count(where: { !$0.budget.isMainFrame }) < limit * othersFactor
    }

    /// How a request's wait for its claim ended (``waitForClaim(_:origin:)``).
    enum ClaimWait {
        /// A task claimed the token.
        case claimed
        /// None did in time, the request has no origin, or the transfers closed.
        case unclaimed
        /// The request could not wait: no call of its origin was admitted yet, or too many requests
        /// of its origin or of all other origins wait already (``WaitingBudget``). The page may
        /// send it again a moment later, when its call may have been admitted (its origin then
        /// waits, in the main frame's budget for a main-frame call).
        case noRoom
    }

    /// Waits up to ``BinaryLimits/requestWait`` for a task to claim `token`. The wait's timer ends
    /// with the wait.
    func waitForClaim(_ token: String, origin: String?) async -> ClaimWait {
        let budget: WaitingBudget
        switch waitingAdmission(for: origin) {
        case .budget(let admitted): budget = admitted
        case .noCallYet: return state.withLock { $0.uploads[token] != nil } ? .claimed : .noRoom
        case .never: return .unclaimed
        }
        let wait = limits.requestWait
        let limit = limits.maxWaitingRequests
        var noRoom = false
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Admitted and recorded under one lock, so that no budget is ever over its limit.
            let admitted = state.withLock { s -> Bool in
                guard s.uploads[token] == nil, s.endedUploads[token] == nil, !s.closed else { return false }
                guard Self.admitsWaiting(budget, in: &s, limit: limit) else {
                    noRoom = true
                    return false
                }
                s.nextWaiter += 1
                let key = s.nextWaiter
                let timer = startWaitTimer(in: &s, seconds: wait) { $0.resumeWaiter(token: token, key: key) }
                s.waiting[token, default: [:]][key] = ClaimWaiter(continuation: continuation, timer: timer)
                s.waiterBudgets[key] = (token, budget)
                s.waitingCount += 1
                return true
            }
            if !admitted { continuation.resume() }
        }
        if state.withLock({ $0.uploads[token] != nil }) { return .claimed }
        return noRoom ? .noRoom : .unclaimed
    }

    /// The wait of the request `key` for `token`'s claim timed out.
    private func resumeWaiter(token: String, key: Int) {
        let waiter = state.withLock { s -> ClaimWaiter? in
            guard let waiter = s.waiting[token]?.removeValue(forKey: key) else { return nil }
            if s.waiting[token]?.isEmpty == true { s.waiting[token] = nil }
            s.waiterBudgets[key] = nil
            s.waitingCount -= 1
            return waiter
        }
        waiter?.continuation.resume()
    }

    /// Wakes waiting page requests (they then find no claim and answer 404).
    func wakeWaitingRequests(all: Bool) {
        let waiters = state.withLock { s -> [ClaimWaiter] in
            let waiters = s.waiting.values.flatMap(\.values)
            s.waiting = [:]
            s.waiterBudgets = [:]
            s.waitingCount = 0
            return waiters
        }
        Self.release(waiters)
    }

    /// Ends the waits of `waiters`: stops their timers and resumes them. Call without the lock.
    static func release(_ waiters: [ClaimWaiter]) {
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume()
        }
    }
}
