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
    ///   declared size is over ``BinaryLimits/maxTransferBytes`` (the page's requests of the token
    ///   are then answered 413 at once); `invalid_options` when the token was already claimed (also
    ///   by an upload that ended); `unavailable` after ``close()``.
    public func upload(of binary: BridgeBinary, context: CallContext) throws(BridgeError) -> BinaryUpload {
        let origin = try checkCall(context)
        if let size = binary.size, size > limits.maxTransferBytes {
            let error = BridgeError.payloadTooLarge(bytes: size, limit: limits.maxTransferBytes)
            refuseClaim(binary.token, origin: origin, status: 413, error: error)
            throw error
        }
        let waiters = try state.withLock { (s) throws(BridgeError) -> [ClaimWaiter] in
            guard s.uploads[binary.token] == nil, s.offers[binary.token] == nil, s.endedUploads[binary.token] == nil
            else {
                throw .invalidOptions("The binary value was already used.", path: "")
            }
            s.uploads[binary.token] = UploadSlot(
                origin: origin, generation: context.pageGeneration, declaredSize: binary.size, callID: context.callID)
            // A claim made as its document ended: the next sweep passes over everything and ends it.
            if context.pageGeneration != s.sweptGeneration { s.nextExpiry = -.infinity }
            return s.takeWaiters(for: binary.token)
        }
        Self.release(waiters)
        return BinaryUpload(
            transfers: self, token: binary.token, declaredSize: binary.size, generation: context.pageGeneration)
    }

    /// The task's claim of `token` was refused with `error`: the page's requests of the token (waiting
    /// or later) are answered at once with `status` and the error's code, not after the request wait.
    /// Leaves a token that names a transfer alone (it is not the refused call's).
    private func refuseClaim(_ token: String, origin: String, status: Int, error: BridgeError) {
        let waiters = state.withLock { s -> [ClaimWaiter] in
            guard s.uploads[token] == nil, s.offers[token] == nil, s.endedUploads[token] == nil else { return [] }
            s.remember(token, EndedUpload(origin: origin, status: status, code: error.code, error: error))
            return s.takeWaiters(for: token)
        }
        Self.release(waiters)
    }

    /// All the bytes of `binary` at once (``upload(of:context:)``, collected): for small values.
    /// - Parameters:
    ///   - binary: the placeholder the task's options decoded.
    ///   - context: the running call's context.
    /// - Returns: the bytes.
    /// - Throws: as ``upload(of:context:)`` and ``BinaryUpload``'s iteration.
    public func data(of binary: BridgeBinary, context: CallContext) async throws -> Data {
        let upload = try upload(of: binary, context: context)
        var data = Data()
        data.reserveCapacity(Self.reservation(declaredSize: binary.size, limits: limits))
        for try await chunk in upload { data.append(chunk) }
        return data
    }

    /// What ``data(of:context:)`` reserves before the bytes arrive, in bytes: the declared size is
    /// the page's word, so it sizes at most one part (``BinaryLimits/partBytes``); the buffer grows
    /// as the parts arrive.
    package static func reservation(declaredSize: Int?, limits: BinaryLimits) -> Int {
        max(0, min(declaredSize ?? 0, limits.partBytes))
    }

    /// A page request with a body: waits (bounded) for the call's task to claim the token, checks
    /// the origin and the generation, hands the body to the task and waits for the outcome.
    ///
    /// A request of the call's origin that breaks the rules of its upload (a part out of order,
    /// a second body, a part of a whole body) is refused and **ends the upload** at once: the
    /// task's stream and the page's call end with the refusal's code (docs/protocol.md, "Binary
    /// values"). A request of another origin is refused (403) without touching the upload.
    func handleUpload(_ request: BinaryRequest) async -> BinaryResponse {
        guard let token = request.token, let body = request.body else {
            request.body?.cancel()
            return .plain(404, code: "unknown_transfer", origin: request.origin)
        }
        if let answer = endedAnswer(token, origin: request.origin) {
            body.cancel()
            return answer
        }
        if state.withLock({ $0.uploads[token] == nil }) {
            let wait = await waitForClaim(token, origin: request.origin)
            guard wait == .claimed else {
                body.cancel()
                // No room to wait: the page may send it again (reason `no_room`, docs/protocol.md).
                return endedAnswer(token, origin: request.origin)
                    ?? Self.answer(
                        404, code: "unknown_transfer", reason: wait == .noRoom ? "no_room" : nil,
                        origin: request.origin)
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<BinaryResponse, Never>) in
            enum Step {
                case refuse(Int, String)
                /// A request of the call's origin against its upload's rules: the upload ends with
                /// `error`, and the request is answered `status` with `reason`.
                case breaksRules(BridgeError, status: Int, reason: String)
                case attach(CheckedContinuation<(any BinaryBodyReader)?, Never>?, Task<Void, Never>?)
            }
            let misuse = { (reason: String) -> Step in
                .breaksRules(
                    .invalidOptions(
                        "The page sent the binary value against the rules of its transfer (\(reason)).", path: ""),
                    status: 409, reason: reason)
            }
            let step = state.withLock { s -> Step in
                guard var slot = s.uploads[token] else {
                    if let ended = s.endedUploads[token] { return .refuse(ended.status, ended.code) }
                    return .refuse(404, "unknown_transfer")
                }
                guard let origin = request.origin, origin == slot.origin else { return .refuse(403, "forbidden") }
                guard slot.body == nil else { return misuse("already_used") }
                if let offset = request.offset {
                    // A part: only of a body sent in parts with a declared size, and only the
                    // next one (each offset is used once, in order: a part brings at least one
                    // byte, see `bodyEnded`).
                    guard slot.parted != false, slot.declaredSize != nil else { return misuse("already_used") }
                    guard offset == slot.bytes else { return misuse("out_of_order") }
                    slot.parted = true
                } else {
                    guard slot.parted == nil else { return misuse("already_used") }
                    // A whole body is one part: a value over the part size goes in parts, so
                    // that the app's process holds one part at a time (a body of unknown size
                    // is cut off at the part size as it is read, `countUpload`).
                    if let size = slot.declaredSize, size > limits.partBytes {
                        return .breaksRules(
                            Self.partTooLarge(bytes: size, limit: limits.partBytes), status: 413,
                            reason: "part_too_large")
                    }
                    slot.parted = false
                }
                slot.body = body
                slot.partStart = slot.bytes
                slot.requestWaiter = continuation
                let waiter = slot.bodyWaiter
                let timer = slot.bodyTimer
                slot.bodyWaiter = nil
                slot.bodyTimer = nil
                s.uploads[token] = slot
                return .attach(waiter, timer)
            }
            switch step {
            case .refuse(let status, let code):
                body.cancel()
                continuation.resume(returning: .plain(status, code: code, origin: request.origin))
            case .breaksRules(let error, let status, let reason):
                body.cancel()
                endUpload(token, .failed(error.code), error: error)
                continuation.resume(
                    returning: Self.answer(
                        status, code: error.code, reason: reason, partBytes: partBytes(after: reason),
                        origin: request.origin))
            case .attach(let waiter, let timer):
                timer?.cancel()
                waiter?.resume(returning: body)
                // An earlier generation's slot is swept (410 through endUpload).
                sweep(now: Self.now())
            }
        }
    }

    /// The answer to a request of an upload that already ended: its ending's status and code
    /// (a finished one: 404 `unknown_transfer`, its token is used up), 403 for another origin;
    /// `nil` when `token` names no ended upload.
    private func endedAnswer(_ token: String, origin: String?) -> BinaryResponse? {
        guard let ended = state.withLock({ $0.endedUploads[token] }) else { return nil }
        guard let origin, origin == ended.origin else { return .plain(403, code: "forbidden", origin: origin) }
        return .plain(ended.status, code: ended.code, origin: origin)
    }

    /// The error the stream of upload `token` ended with, when it ended with one.
    func endingError(_ token: String) -> BridgeError? {
        state.withLock { $0.endedUploads[token]?.error }
    }

    /// A body or part over the part size (`payload_too_large`): its details name the reason and
    /// the part size (`limit`), so the page sends its next values in parts that fit, also when this
    /// error reaches it before the refused request's own answer.
    static func partTooLarge(bytes: Int, limit: Int) -> BridgeError {
        BridgeError(
            code: BridgeError.payloadTooLarge(bytes: bytes, limit: limit).code,
            message: "The part has \(bytes) bytes; the part size is \(limit).",
            details: ["bytes": .int(Int64(bytes)), "limit": .int(Int64(limit)), "reason": "part_too_large"])
    }

    /// The part size to tell the page with a refusal for `reason`: after `part_too_large`, so a
    /// page that learned a larger one (``BinaryLimits`` replaced for its view) sends its next
    /// values in parts that fit.
    private func partBytes(after reason: String?) -> Int? {
        reason == "part_too_large" ? limits.partBytes : nil
    }

    /// An answer `{"code": code, "reason": reason}` (and `"partBytes"` when given) with CORS headers for `origin`.
    static func answer(
        _ status: Int, code: String, reason: String? = nil, partBytes: Int? = nil, origin: String?
    ) -> BinaryResponse {
        var fields = ["\"code\":\"\(code)\""]
        if let reason { fields.append("\"reason\":\"\(reason)\"") }
        if let partBytes { fields.append("\"partBytes\":\(partBytes)") }
        let text = Data("{\(fields.joined(separator: ","))}".utf8)
        var headers = ["Content-Type": "application/json"]
        if let origin { headers["Access-Control-Allow-Origin"] = origin }
        return BinaryResponse(status: status, headers: headers, body: DataBodyReader(text), contentLength: text.count)
    }

    /// Waits for the page's request body of the claimed upload `token` (its first, or its next
    /// part): `nil` when the upload ended first (cancelled, timed out, navigated).
    func awaitBody(_ token: String) async -> (any BinaryBodyReader)? {
        let wait = limits.claimWait
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<(any BinaryBodyReader)?, Never>) in
                // The wait's timer ends with the wait: the body's arrival or the upload's end cancels it.
                let ready = state.withLock { s -> Result<(any BinaryBodyReader)?, Never>? in
                    guard var slot = s.uploads[token] else { return .success(nil) }
                    if let body = slot.body { return .success(body) }
                    slot.bodyWaiter = continuation
                    slot.bodyWait += 1
                    let number = slot.bodyWait
                    slot.bodyTimer?.cancel()
                    slot.bodyTimer = startWaitTimer(in: &s, seconds: wait) { transfers in
                        let waiting = transfers.state.withLock { s in
                            s.uploads[token].map { $0.body == nil && $0.bodyWait == number } ?? false
                        }
                        if waiting { transfers.endUpload(token, .failed("timeout"), error: .timeout(seconds: wait)) }
                    }
                    s.uploads[token] = slot
                    return nil
                }
                if case .success(let body) = ready { continuation.resume(returning: body) }
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

    /// Counts `count` more bytes of upload `token`; returns the error that ends it, if any, and
    /// the answer's `reason` for it (`part_too_large`: a part over ``BinaryLimits/partBytes``).
    func countUpload(_ token: String, bytes count: Int) -> (error: BridgeError, reason: String?)? {
        let result = state.withLock { s -> (Int, Int, Int?, UInt64)? in
            guard var slot = s.uploads[token] else { return nil }
            slot.bytes += count
            s.uploads[token] = slot
            return (slot.bytes, slot.bytes - slot.partStart, slot.declaredSize, slot.generation)
        }
        guard let (bytes, partBytes, declared, generation) = result else { return (.cancelled(), nil) }
        let limit = min(limits.maxTransferBytes, declared ?? .max)
        if bytes > limit { return (.payloadTooLarge(bytes: bytes, limit: limit), nil) }
        // A part, or a whole body (one part): the app holds at most one part at a time.
        if partBytes > limits.partBytes {
            return (Self.partTooLarge(bytes: partBytes, limit: limits.partBytes), "part_too_large")
        }
        if !isCurrent(generation) { return (.navigated(), nil) }
        return nil
    }

    /// What follows the end of the page's current request body of upload `token`.
    enum BodyEnd {
        /// The declared size arrived (or none was declared): the upload finished.
        case finished
        /// A part ended before the declared size: its request was answered 200; the next part follows.
        case nextPart
        /// A whole body ended before its declared size, or a part brought no byte (the page
        /// stopped sending: a part that is empty would leave its offset to be used again).
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
            guard slot.parted == true, slot.bytes > slot.partStart else { return .end(.short) }
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
            waiter?.resume(returning: Self.answer(200, code: "ok", partBytes: limits.partBytes, origin: origin))
            return .nextPart
        }
    }

    /// Ends upload `token` once: removes it, answers the page's request and the waiting task,
    /// stops the body unless it was read to its end, reports the record, and remembers the ending
    /// (``BinaryTransfers/State/maxEndedUploads``) for later requests of the token and for the task's stream.
    /// - Parameters:
    ///   - token: the upload's token.
    ///   - outcome: how it ended.
    ///   - error: the error the task's stream ends with (default: one made from `outcome`'s code).
    ///   - reason: the `reason` in the answer to the page's request in progress, if any.
    func endUpload(
        _ token: String, _ outcome: BinaryTransferRecord.Outcome, error: BridgeError? = nil, reason: String? = nil
    ) {
        let (status, code): (Int, String) =
            switch outcome {
            case .finished: (404, "unknown_transfer")
            case .cancelled: (499, "cancelled")
            case .failed(let code):
                (code == "payload_too_large" ? 413 : code == "navigated" ? 410 : code == "timeout" ? 504 : 400, code)
            }
        let streamError: BridgeError? =
            switch outcome {
            case .finished: nil
            case .cancelled: error ?? .cancelled()
            case .failed(let code): error ?? BridgeError(code: code, message: "The binary value's transfer failed.")
            }
        // Read before the lock (the router has its own): a request of an earlier document's upload is told so.
        let generation = router?.pageGeneration
        let slot = state.withLock { s -> UploadSlot? in
            guard let slot = s.uploads.removeValue(forKey: token) else { return nil }
            s.remember(
                token,
                slot.generation == generation
                    ? EndedUpload(origin: slot.origin, status: status, code: code, error: streamError)
                    : EndedUpload(origin: slot.origin, status: 410, code: "navigated", error: .navigated()))
            return slot
        }
        guard let slot else { return }
        slot.bodyTimer?.cancel()
        if outcome != .finished { slot.body?.cancel() }
        // The record first: an observer sees the transfer end before the call's reply can go.
        report(
            BinaryTransferRecord(
                token: token, direction: .upload, bytes: slot.bytes, outcome: outcome, callID: slot.callID))
        slot.bodyWaiter?.resume(returning: nil)
        let answer =
            outcome == .finished
            ? Self.answer(200, code: "ok", partBytes: limits.partBytes, origin: slot.origin)
            : Self.answer(status, code: code, reason: reason, partBytes: partBytes(after: reason), origin: slot.origin)
        slot.requestWaiter?.resume(returning: answer)
    }
}
