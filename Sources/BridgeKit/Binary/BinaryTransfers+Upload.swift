public import Foundation

extension BinaryTransfers {
    /// Claims the bytes the page passed as `binary` in the options of the call `context` runs,
    /// and returns them as a stream of chunks (at most ``BinaryLimits/chunkBytes`` each), read
    /// from the page's request as the task iterates: a large body is never held whole.
    ///
    /// - Parameters:
    ///   - binary: the placeholder the task's options decoded.
    ///   - context: the running call's context (origin, frame, page generation).
    /// - Returns: the upload; iterate it once.
    /// - Throws: ``BridgeError``: `forbidden` for a call from a subframe or without an origin;
    ///   `navigated` when the page generation already ended; `payload_too_large` when the
    ///   declared size is over ``BinaryLimits/maxTransferBytes``; `invalid_options` when the
    ///   token was already claimed; `unavailable` after ``close()``.
    public func upload(of binary: BridgeBinary, context: CallContext) throws(BridgeError) -> BinaryUpload {
        let origin = try checkCall(context)
        if let size = binary.size, size > limits.maxTransferBytes {
            throw .payloadTooLarge(bytes: size, limit: limits.maxTransferBytes)
        }
        let waiters = try state.withLock { (s) throws(BridgeError) -> [CheckedContinuation<Void, Never>] in
            guard s.uploads[binary.token] == nil, s.offers[binary.token] == nil else {
                throw .invalidOptions("The binary value was already used.", path: "")
            }
            s.uploads[binary.token] = UploadSlot(
                origin: origin, generation: context.pageGeneration, declaredSize: binary.size, callID: context.callID)
            let waiters = s.waiting.removeValue(forKey: binary.token).map { Array($0.values) } ?? []
            s.waitingCount -= waiters.count
            return waiters
        }
        for waiter in waiters { waiter.resume() }
        return BinaryUpload(
            transfers: self, token: binary.token, declaredSize: binary.size, generation: context.pageGeneration)
    }

    /// All the bytes of `binary` at once (``upload(of:context:)``, collected): for small values.
    /// - Parameters:
    ///   - binary: the placeholder the task's options decoded.
    ///   - context: the running call's context.
    /// - Returns: the bytes.
    /// - Throws: as ``upload(of:context:)`` and ``BinaryUpload``'s iteration.
    public func data(of binary: BridgeBinary, context: CallContext) async throws -> Data {
        var data = Data()
        if let size = binary.size { data.reserveCapacity(size) }
        for try await chunk in try upload(of: binary, context: context) { data.append(chunk) }
        return data
    }

    /// A page request with a body: waits (bounded) for the call's task to claim the token, checks
    /// the origin and the generation, hands the body to the task and waits for the outcome.
    func handleUpload(_ request: BinaryRequest) async -> BinaryResponse {
        guard let token = request.token, let body = request.body else {
            request.body?.cancel()
            return .plain(404, code: "unknown_transfer", origin: request.origin)
        }
        if state.withLock({ $0.uploads[token] == nil }) {
            guard await waitForClaim(token, origin: request.origin) else {
                body.cancel()
                return .plain(404, code: "unknown_transfer", origin: request.origin)
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<BinaryResponse, Never>) in
            enum Step {
                case refuse(Int, String)
                case attach(CheckedContinuation<(any BinaryBodyReader)?, Never>?)
            }
            let step = state.withLock { s -> Step in
                guard var slot = s.uploads[token] else { return .refuse(404, "unknown_transfer") }
                guard let origin = request.origin, origin == slot.origin else { return .refuse(403, "forbidden") }
                guard slot.body == nil else { return .refuse(409, "already_used") }
                if let offset = request.offset {
                    // A part: only of a body sent in parts with a declared size, and only the
                    // next one (each offset is used once, in order).
                    guard slot.parted != false, slot.declaredSize != nil else { return .refuse(409, "already_used") }
                    guard offset == slot.bytes else { return .refuse(409, "out_of_order") }
                    slot.parted = true
                } else {
                    guard slot.parted == nil else { return .refuse(409, "already_used") }
                    slot.parted = false
                }
                slot.body = body
                slot.requestWaiter = continuation
                let waiter = slot.bodyWaiter
                slot.bodyWaiter = nil
                s.uploads[token] = slot
                return .attach(waiter)
            }
            switch step {
            case .refuse(let status, let code):
                body.cancel()
                continuation.resume(returning: .plain(status, code: code, origin: request.origin))
            case .attach(let waiter):
                waiter?.resume(returning: body)
                // An earlier generation's slot is swept (410 through endUpload).
                sweep(now: Self.now())
            }
        }
    }

    /// Waits up to ``BinaryLimits/requestWait`` for a task to claim `token`; false when none did,
    /// the request has no origin, too many requests of its origin or of all other origins wait
    /// already (``WaitingBudget``), or the transfers closed.
    private func waitForClaim(_ token: String, origin: String?) async -> Bool {
        guard let budget = waitingBudget(for: origin) else { return false }
        let wait = limits.requestWait
        let limit = limits.maxWaitingRequests
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Admitted and recorded under one lock, so that no budget is ever over its limit.
            let admitted = state.withLock { s -> Int? in
                guard s.uploads[token] == nil, !s.closed, Self.admitsWaiting(budget, in: &s, limit: limit) else {
                    return nil
                }
                s.nextWaiter += 1
                s.waiting[token, default: [:]][s.nextWaiter] = continuation
                s.waiterBudgets[s.nextWaiter] = (token, budget)
                s.waitingCount += 1
                return s.nextWaiter
            }
            guard let key = admitted else {
                continuation.resume()
                return
            }
            Task.detached { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(max(0, wait) * 1e9))
                self?.resumeWaiter(token: token, key: key)
            }
        }
        return state.withLock { $0.uploads[token] != nil }
    }

    private func resumeWaiter(token: String, key: Int) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiting[token]?.removeValue(forKey: key) else { return nil }
            if s.waiting[token]?.isEmpty == true { s.waiting[token] = nil }
            s.waiterBudgets[key] = nil
            s.waitingCount -= 1
            return waiter
        }
        waiter?.resume()
    }

    /// Wakes waiting page requests (they then find no claim and answer 404).
    func wakeWaitingRequests(all: Bool) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            let waiters = s.waiting.values.flatMap(\.values)
            s.waiting = [:]
            s.waiterBudgets = [:]
            s.waitingCount = 0
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for the page's request body of the claimed upload `token` (its first, or its next
    /// part): `nil` when the upload ended first (cancelled, timed out, navigated).
    func awaitBody(_ token: String) async -> (any BinaryBodyReader)? {
        let wait = limits.claimWait
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<(any BinaryBodyReader)?, Never>) in
                let ready = state.withLock { s -> Result<(any BinaryBodyReader)?, Never>? in
                    guard var slot = s.uploads[token] else { return .success(nil) }
                    if let body = slot.body { return .success(body) }
                    slot.bodyWaiter = continuation
                    slot.bodyWait += 1
                    s.uploads[token] = slot
                    return nil
                }
                if case .success(let body) = ready {
                    continuation.resume(returning: body)
                    return
                }
                let number = state.withLock { $0.uploads[token]?.bodyWait }
                Task.detached { [weak self] in
                    try? await Task.sleep(nanoseconds: UInt64(max(0, wait) * 1e9))
                    guard let self else { return }
                    let waiting = self.state.withLock { s in
                        s.uploads[token].map { $0.body == nil && $0.bodyWait == number } ?? false
                    }
                    if waiting { self.endUpload(token, .failed("timeout")) }
                }
            }
        } onCancel: {
            endUpload(token, .cancelled)
        }
    }

    /// Why a transfer of page generation `generation` cannot go on, if it is for a reason outside
    /// it: `unavailable` after ``close()`` (the code a closed router gives its calls), `navigated`
    /// once the generation ended (the code a replaced document's calls settle with).
    func interruption(of generation: UInt64) -> BridgeError? {
        if state.withLock({ $0.closed }) { return .unavailable("The web view was closed.") }
        if !isCurrent(generation) { return .navigated() }
        return nil
    }

    /// Counts `count` more bytes of upload `token`; returns the error that ends it, if any.
    func countUpload(_ token: String, bytes count: Int) -> BridgeError? {
        let result = state.withLock { s -> (Int, Int?, UInt64)? in
            guard var slot = s.uploads[token] else { return nil }
            slot.bytes += count
            s.uploads[token] = slot
            return (slot.bytes, slot.declaredSize, slot.generation)
        }
        guard let (bytes, declared, generation) = result else { return .cancelled() }
        let limit = min(limits.maxTransferBytes, declared ?? .max)
        if bytes > limit { return .payloadTooLarge(bytes: bytes, limit: limit) }
        if !isCurrent(generation) { return .navigated() }
        return nil
    }

    /// What follows the end of the page's current request body of upload `token`.
    enum BodyEnd {
        /// The declared size arrived (or none was declared): the upload finished.
        case finished
        /// A part ended before the declared size: its request was answered 200; the next part follows.
        case nextPart
        /// A whole body ended before its declared size.
        case short
        /// The upload already ended.
        case gone
    }

    /// The page's current request body of upload `token` ended: finishes the upload when all its
    /// bytes came; for a part before the end, answers the part's request (200) and releases its
    /// body, so the page sends the next part (at most one part is held at a time).
    func bodyEnded(_ token: String) -> BodyEnd {
        enum Step {
            case end(BodyEnd)
            case answer(CheckedContinuation<BinaryResponse, Never>?, origin: String)
        }
        let step = state.withLock { s -> Step in
            guard var slot = s.uploads[token] else { return .end(.gone) }
            if slot.declaredSize.map({ $0 == slot.bytes }) ?? true { return .end(.finished) }
            guard slot.parted == true else { return .end(.short) }
            let waiter = slot.requestWaiter
            slot.requestWaiter = nil
            slot.body = nil
            s.uploads[token] = slot
            return .answer(waiter, origin: slot.origin)
        }
        switch step {
        case .end(.finished):
            endUpload(token, .finished)
            return .finished
        case .end(let end):
            return end
        case .answer(let waiter, let origin):
            waiter?.resume(returning: .plain(200, code: "ok", origin: origin))
            return .nextPart
        }
    }

    /// Ends upload `token` once: removes it, answers the page's request and the waiting task,
    /// stops the body unless it was read to its end, reports the record.
    func endUpload(_ token: String, _ outcome: BinaryTransferRecord.Outcome) {
        guard let slot = state.withLock({ $0.uploads.removeValue(forKey: token) }) else { return }
        let (status, code): (Int, String) =
            switch outcome {
            case .finished: (200, "ok")
            case .cancelled: (499, "cancelled")
            case .failed(let code):
                (code == "payload_too_large" ? 413 : code == "navigated" ? 410 : code == "timeout" ? 504 : 400, code)
            }
        if outcome != .finished { slot.body?.cancel() }
        // The record first: an observer sees the transfer end before the call's reply can go.
        report(
            BinaryTransferRecord(
                token: token, direction: .upload, bytes: slot.bytes, outcome: outcome, callID: slot.callID))
        slot.bodyWaiter?.resume(returning: nil)
        slot.requestWaiter?.resume(returning: .plain(status, code: code, origin: slot.origin))
    }
}
