public import Foundation

extension BinaryTransfers {
    /// Hands `data` to the page of the call `context` runs: returns the placeholder to put in the
    /// call's result or progress, which the page gets as a `Uint8Array`. The page's shim fetches
    /// the bytes once, in parts of at most ``BinaryLimits/partBytes`` (docs/protocol.md, "Download
    /// in parts"), from the byte transport; they are held here until then (against
    /// ``BinaryLimits/maxHeldBytes``) or until ``BinaryLimits/offerLifetime`` passes, the page
    /// generation ends or the transfers close.
    ///
    /// The page learns the token from the call's next message (its next progress or its final
    /// reply lists it in the envelope's `binary` member, docs/protocol.md "Binary values"), so
    /// put the placeholder in that message or a later one of the same call. With a context of no
    /// pending call (one made with ``CallContext``'s public initializer, to send bytes in an
    /// event), the token is announced with the ``announcementEvent`` event before this returns.
    ///
    /// - Parameters:
    ///   - data: the bytes.
    ///   - type: a MIME type the page may read (`Blob` type), or `nil`.
    ///   - context: the running call's context.
    /// - Returns: the placeholder.
    /// - Throws: ``BridgeError``: `forbidden`, `navigated`, `unavailable` as for
    ///   ``upload(of:context:)``; `cancelled` when the call has already settled (its reply was
    ///   sent, or it was cancelled or timed out: as for ``CallContext/progress(_:)-(EncodableSendable)``, nothing would
    ///   read the bytes); `payload_too_large` over ``BinaryLimits/maxTransferBytes``;
    ///   `memory_budget_exceeded` over ``BinaryLimits/maxHeldBytes`` or with
    ///   ``BinaryLimits/maxOffers`` offers open already; for a context of no pending
    ///   call, what announcing the token to the page throws (`unavailable` when the page is gone).
    public func send(_ data: Data, type: String? = nil, context: CallContext) async throws -> BridgeBinary {
        try await offer(.data(data), size: data.count, type: type, context: context)
    }

    /// Hands a stream of chunks to the page of the call `context` runs, as ``send(_:type:context:)``
    /// does with `Data`, without holding it: the stream is read as the page reads it (with a
    /// `size`, one part of at most ``BinaryLimits/partBytes`` after the other, each asked for when
    /// the page has read the one before), so native holds about one chunk at a time. Iterating ends the stream exactly once: at its
    /// end (finished), when it throws (the page's read fails), or when the page aborts or goes
    /// away (the stream is cancelled: its `onTermination` runs).
    ///
    /// - Parameters:
    ///   - chunks: the bytes, in chunks.
    ///   - size: the total byte count when known (the page gets it as `size` and for its progress).
    ///   - type: a MIME type, or `nil`.
    ///   - context: the running call's context.
    /// The offer counts ``BinaryLimits/chunkBytes`` against ``BinaryLimits/maxHeldBytes`` until
    /// it ends, so the number of streams offered and not yet ended is bounded.
    ///
    /// - Returns: the placeholder.
    /// - Throws: as ``send(_:type:context:)``; `memory_budget_exceeded` when one more chunk would
    ///   be over ``BinaryLimits/maxHeldBytes`` (the stream is then dropped: its `onTermination` runs).
    public func send(
        chunks: AsyncThrowingStream<Data, any Error>, size: Int?, type: String? = nil, context: CallContext
    ) async throws -> BridgeBinary {
        try await offer(.stream(chunks), size: size, type: type, context: context)
    }

    private func offer(_ source: OfferSource, size: Int?, type: String?, context: CallContext) async throws
        -> BridgeBinary
    {
        let origin = try checkCall(context)
        try checkUnsettled(context)
        let token = try hold(source, size: size, type: type, origin: origin, context: context)
        do {
            guard let router else { throw BridgeError.unavailable("The router was released.") }
            if let call = context.pendingCall {
                // The token rides the call's next message (no message of its own).
                guard router.offerBinary(token, for: call) else {
                    router.record(
                        .outbound, .progress, id: call.id, task: call.taskName, outcome: "cancelled",
                        reason: .notDelivered)
                    throw BridgeError.cancelled("The call has already settled.")
                }
            } else {
                try await router.emit(Self.announcementEvent, data: Announcement(tokens: [token]))
            }
        } catch {
            endOffer(token, .cancelled, bytes: 0)
            throw error
        }
        return BridgeBinary(token: token, size: size, type: type)
    }

    /// `data` that a call's result or progress holds as a plain `Data` value, offered while the
    /// router writes that message (``BinaryOutlet``), as ``send(_:type:context:)`` offers it: the
    /// router lists the token in the envelope of the message being written, so this neither
    /// waits nor announces. Synchronous, any thread.
    /// - Returns: the placeholder written in place of the bytes.
    /// - Throws: ``BridgeError``, as ``send(_:type:context:)`` throws before it announces.
    func offerWritten(_ data: Data, context: CallContext) throws(BridgeError) -> BridgeBinary {
        let origin = try checkCall(context)
        let token = try hold(.data(data), size: data.count, type: nil, origin: origin, context: context)
        return BridgeBinary(token: token, size: data.count, type: nil)
    }

    /// Holds a new offer of `source` for the call `context` runs, within the limits, until the
    /// page fetches it, it expires or its generation ends.
    /// - Returns: its token.
    /// - Throws: ``BridgeError``: `payload_too_large` over ``BinaryLimits/maxTransferBytes``,
    ///   `memory_budget_exceeded` over ``BinaryLimits/maxHeldBytes`` or ``BinaryLimits/maxOffers``.
    private func hold(_ source: OfferSource, size: Int?, type: String?, origin: String, context: CallContext)
        throws(BridgeError) -> String
    {
        if let size, size > limits.maxTransferBytes {
            throw BridgeError.payloadTooLarge(bytes: size, limit: limits.maxTransferBytes)
        }
        // A chunk stream counts one chunk (what its source may hold ready), so that the offers a
        // page can make the app keep open (a file handle each, say) are bounded too.
        let held: Int
        switch source {
        case .data(let data): held = data.count
        case .stream: held = limits.chunkBytes
        }
        // Expired offers give their bytes back before this one is counted.
        sweep(now: Self.now())
        let token = BinaryToken.make()
        let offer = Offer(
            origin: origin, generation: context.pageGeneration, callID: context.callID, source: source, size: size,
            type: type, expires: Self.now() + limits.offerLifetime, held: held)
        try state.withLock { (s) throws(BridgeError) in
            guard s.offers.count < limits.maxOffers else {
                throw .offerBudgetExceeded(offers: s.offers.count, limit: limits.maxOffers)
            }
            guard s.heldBytes + held <= limits.maxHeldBytes else {
                throw .memoryBudgetExceeded(bytes: s.heldBytes + held, limit: limits.maxHeldBytes)
            }
            s.heldBytes += held
            s.offers[token] = offer
            s.noteIdle(generation: offer.generation, expires: offer.expires)
        }
        scheduleExpiry()
        return token
    }

    /// Refuses bytes for a call that has already settled (replied, cancelled, timed out), as
    /// ``CallContext/progress(_:)-(EncodableSendable)`` refuses progress then: nothing would read them. The refusal is
    /// in the router's traffic log (an outbound `progress`, outcome `cancelled`, not delivered).
    /// - Throws: ``BridgeError`` `cancelled`.
    private func checkUnsettled(_ context: CallContext) throws(BridgeError) {
        guard let call = context.pendingCall, let router else { return }
        guard router.state.withLock({ $0.calls[call.id] !== call }) else { return }
        router.record(
            .outbound, .progress, id: call.id, task: call.taskName, outcome: "cancelled", reason: .notDelivered)
        throw .cancelled("The call has already settled.")
    }

    /// The announcement event's data.
    private struct Announcement: Encodable, Sendable {
        var tokens: [String]
    }

    /// A page request for a download: checks the token, origin and generation, takes the offer
    /// (once) and streams it: whole (no query), or the part that starts at `?offset=<n>` when the
    /// page reads it in parts (docs/protocol.md, "Download in parts").
    func handleDownload(_ request: BinaryRequest) -> BinaryResponse {
        guard let token = request.token else { return .plain(404, code: "unknown_transfer", origin: request.origin) }
        // After close() every download ended with the web view: a page still reading one (its next
        // part) learns why, as a read in flight does, instead of "no such transfer".
        if isClosed { return .plain(503, code: "unavailable", origin: request.origin) }
        if request.cancels { return cancelDownload(token, origin: request.origin) }
        /// A part: its length, and whether it ends at the download's size.
        typealias Part = (length: Int, isLast: Bool)
        enum Step {
            case refuse(Int, String)
            /// Serve the reader's bytes: all of them, or one part.
            case serve(Offer, OfferBodyReader, Part?)
        }
        let partBytes = limits.partBytes
        let step = state.withLock { s -> Step in
            guard var offer = s.offers[token] else { return .refuse(404, "unknown_transfer") }
            guard let origin = request.origin, origin == offer.origin else { return .refuse(403, "forbidden") }
            // Read whole or in parts, as its first request chose.
            guard !offer.taken || (request.offset != nil && offer.partReader != nil) else {
                return .refuse(409, "already_used")
            }
            var part: Part?
            if let offset = request.offset {
                // Parts need the size (the page stops at it) and come one at a time, in order.
                guard let size = offer.size else { return .refuse(409, "invalid_options") }
                guard !offer.partOpen, offset == offer.nextOffset else { return .refuse(409, "invalid_options") }
                let length = min(partBytes, size - offset)
                part = (length, offset + length == size)
                offer.partOpen = true
                offer.nextOffset = offset + length
            }
            let reader = offer.partReader ?? OfferBodyReader(transfers: self, token: token, offer: offer)
            if !offer.taken {
                offer.taken = true
                // The offer's end (close(), the reader's own end) stops a read waiting for the source.
                offer.interrupt = { [weak reader] in reader?.interrupt() }
                if part != nil { offer.partReader = reader }
            }
            s.offers[token] = offer
            return .serve(offer, reader, part)
        }
        let (offer, reader, part): (Offer, OfferBodyReader, Part?)
        switch step {
        case .refuse(let status, let code): return .plain(status, code: code, origin: request.origin)
        case .serve(let taken, let takenReader, let takenPart): (offer, reader, part) = (taken, takenReader, takenPart)
        }
        guard isCurrent(offer.generation) else {
            endOffer(token, .failed("navigated"), bytes: 0)
            return .plain(410, code: "navigated", origin: request.origin)
        }
        let body: any BinaryBodyReader =
            part.map {
                OfferPartReader(transfers: self, token: token, whole: reader, length: $0.length, isLast: $0.isLast)
            } ?? reader
        let length = part?.length ?? offer.size
        var headers = [
            "Access-Control-Allow-Origin": offer.origin,
            "Access-Control-Expose-Headers": "Content-Length",
            "Content-Type": offer.type ?? "application/octet-stream",
            "Cache-Control": "no-store",
        ]
        if let length { headers["Content-Length"] = String(length) }
        return BinaryResponse(status: 200, headers: headers, body: body, contentLength: length)
    }

    /// The page ends download `token` (`?cancel`): one it has not fetched yet, or one it reads in
    /// parts (a part being read is cancelled). A download read whole is ended by aborting its
    /// request instead (409). Only the download's origin may (403).
    private func cancelDownload(_ token: String, origin: String?) -> BinaryResponse {
        enum Step {
            case refuse(Int, String)
            case endUnread
            case endParts(OfferBodyReader)
        }
        let step = state.withLock { s -> Step in
            guard let offer = s.offers[token] else { return .refuse(404, "unknown_transfer") }
            guard let origin, origin == offer.origin else { return .refuse(403, "forbidden") }
            if let reader = offer.partReader { return .endParts(reader) }
            guard !offer.taken else { return .refuse(409, "already_used") }
            // Taken here, under the lock, so no request takes it before it ends below.
            s.offers[token]?.taken = true
            return .endUnread
        }
        switch step {
        case .refuse(let status, let code): return .plain(status, code: code, origin: origin)
        case .endUnread: endOffer(token, .cancelled, bytes: 0)
        case .endParts(let reader): reader.cancel()
        }
        return .plain(200, code: "cancelled", origin: origin)
    }

    /// A part of download `token` was read to its end (not the last part): the offer waits for
    /// the page's next part, at most ``BinaryLimits/offerLifetime``, like an unfetched offer.
    /// An offer that becomes idle after its document ended (or the transfers closed) ends here,
    /// at once: the document's end swept only idle offers, and this one was not idle then.
    func endPart(_ token: String) {
        state.withLock { s in
            guard var offer = s.offers[token] else { return }
            offer.partOpen = false
            offer.expires = Self.now() + limits.offerLifetime
            s.offers[token] = offer
            s.noteIdle(generation: offer.generation, expires: offer.expires)
        }
        sweep(now: Self.now())
        scheduleExpiry()
    }

    /// Ends download `token` once: removes it, releases its held bytes, stops its reader's read
    /// waiting for the source (``OfferBodyReader/interrupt()``), reports the record.
    func endOffer(_ token: String, _ outcome: BinaryTransferRecord.Outcome, bytes: Int) {
        guard
            let offer = state.withLock({ s -> Offer? in
                guard let offer = s.offers.removeValue(forKey: token) else { return nil }
                s.heldBytes -= offer.held
                return offer
            })
        else { return }
        offer.interrupt?()
        // An offer read in parts and ended between two parts: the bytes of the parts served.
        let served = offer.partReader != nil && !offer.partOpen ? offer.nextOffset : 0
        report(
            BinaryTransferRecord(
                token: token, direction: .download, bytes: max(bytes, served), outcome: outcome,
                callID: offer.callID))
    }
}

/// A download's body as the transport reads it: the offer's bytes in chunks, checking the page
/// generation on every chunk. One reader at a time (``BinaryBodyReader``).
final class OfferBodyReader: BinaryBodyReader, @unchecked Sendable {
    private let transfers: BinaryTransfers
    private let token: String
    private let generation: UInt64
    private let size: Int?
    // Only `read` touches these, one call at a time (the protocol's rule); `ended` under its lock.
    private var data: Data?
    private var offset = 0
    private let source: ChunkSource?
    /// The bytes handed to the transport; under a lock, since `end` reads it from whichever
    /// thread ends the reader (a `cancel` may come while `read` counts).
    private let sentBytes = Locked(0)
    private var pendingChunk: Data?
    private let ended = Locked(false)
    /// The task waiting for the source's next chunk, so that ``interrupt()`` can end the wait.
    private let waiting = Locked<Task<Data?, any Error>?>(nil)

    /// The source's iterator; one `next()` at a time (the reader's rule), in a task of its own.
    private final class ChunkSource: @unchecked Sendable {
        private var iterator: AsyncThrowingStream<Data, any Error>.Iterator
        init(_ stream: AsyncThrowingStream<Data, any Error>) { iterator = stream.makeAsyncIterator() }
        func next() async throws -> Data? { try await iterator.next() }
    }

    init(transfers: BinaryTransfers, token: String, offer: BinaryTransfers.Offer) {
        self.transfers = transfers
        self.token = token
        generation = offer.generation
        size = offer.size
        switch offer.source {
        case .data(let data):
            self.data = data
            source = nil
        case .stream(let stream):
            source = ChunkSource(stream)
        }
    }

    deinit {
        end(.cancelled)
    }

    func read(maxBytes: Int) async throws -> Data? {
        guard !ended.withLock({ $0 }) else { throw BridgeError.cancelled() }
        guard !transfers.isClosed else {
            end(.cancelled)
            throw BridgeError.unavailable("The web view was closed.")
        }
        guard transfers.isCurrent(generation) else {
            end(.failed("navigated"))
            throw BridgeError.navigated()
        }
        let limit = max(1, maxBytes)
        let chunk: Data?
        if let data {
            if offset >= data.count {
                chunk = nil
            } else {
                let end = min(data.count, offset + limit)
                chunk = data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end))
                offset = end
            }
        } else if let pending = pendingChunk {
            let piece = pending.prefix(limit)
            pendingChunk = pending.count > limit ? Data(pending.dropFirst(limit)) : nil
            chunk = Data(piece)
        } else {
            do {
                var next: Data? = Data()
                while let got = next, got.isEmpty { next = try await nextFromSource() }
                try checkNotStopped()
                if let got = next, got.count > limit {
                    pendingChunk = Data(got.dropFirst(limit))
                    chunk = Data(got.prefix(limit))
                } else {
                    chunk = next
                }
            } catch {
                if let stop = stopError() {
                    end(.cancelled)
                    throw stop
                }
                end(.failed((error as? BridgeError)?.code ?? "task_failed"))
                throw error
            }
        }
        guard let chunk else {
            if let size, size != sentBytes.withLock({ $0 }) {
                end(.failed("invalid_result"))
                throw BridgeError.invalidResult("The stream ended before its declared size.")
            }
            end(.finished)
            return nil
        }
        let sent = sentBytes.withLock { total -> Int in
            total += chunk.count
            return total
        }
        if sent > transfers.limits.maxTransferBytes || (size.map { sent > $0 } ?? false) {
            end(.failed("payload_too_large"))
            throw BridgeError.payloadTooLarge(bytes: sent, limit: size ?? transfers.limits.maxTransferBytes)
        }
        return chunk
    }

    func cancel() {
        end(.cancelled)
    }

    /// Ends a read waiting for the source's next chunk (the offer ended: the reader was cancelled,
    /// the transfers closed): the wait's task is cancelled, which ends the source's stream
    /// (`onTermination` with `.cancelled`) instead of waiting for a chunk that may never come.
    func interrupt() {
        waiting.withLock { $0 }?.cancel()
    }

    /// The source's next chunk, read in a task that ``interrupt()`` cancels.
    private func nextFromSource() async throws -> Data? {
        guard let source else { return nil }
        let task = Task { try await source.next() }
        waiting.withLock { $0 = task }
        defer { waiting.withLock { $0 = nil } }
        // An end that came before the task was recorded cancels it here.
        if stopError() != nil { task.cancel() }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Why the reader must stop, if it must: the transfers closed (unavailable) or it ended (cancelled).
    private func stopError() -> BridgeError? {
        if transfers.isClosed { return .unavailable("The web view was closed.") }
        if ended.withLock({ $0 }) { return .cancelled() }
        return nil
    }

    /// Throws ``stopError()``, ending the reader first.
    private func checkNotStopped() throws(BridgeError) {
        guard let stop = stopError() else { return }
        end(.cancelled)
        throw stop
    }

    private func end(_ outcome: BinaryTransferRecord.Outcome) {
        guard
            ended.withLock({ e -> Bool in
                defer { e = true }
                return !e
            })
        else { return }
        // The stream is dropped with this reader (its onTermination runs then): `cancel` may come
        // from another thread while `read` uses it.
        transfers.endOffer(token, outcome, bytes: sentBytes.withLock { $0 })
    }
}

/// One part of a download read in parts: at most `length` bytes of the download's reader, which
/// the offer keeps between parts. The last part's body ends when the download's source ends
/// (so that a source longer than its size still fails it); any other part's body ends after its
/// `length` bytes and tells the transfers (``BinaryTransfers/endPart(_:)``). Cancelling a part
/// (the page aborted its read, the page went away) ends the whole download, cancelled.
final class OfferPartReader: BinaryBodyReader, @unchecked Sendable {
    private let transfers: BinaryTransfers
    private let token: String
    private let whole: OfferBodyReader
    private let isLast: Bool
    // Only `read` touches it, one call at a time (the protocol's rule).
    private var remaining: Int
    /// Whether the part is over: its end was read, a read threw, or it was cancelled.
    private let over = Locked(false)

    init(transfers: BinaryTransfers, token: String, whole: OfferBodyReader, length: Int, isLast: Bool) {
        self.transfers = transfers
        self.token = token
        self.whole = whole
        self.isLast = isLast
        remaining = length
    }

    /// A part released before it was over (its transport dropped it) ends as a whole body
    /// released unread does: cancelled, so its download never stays "part open" (neither idle
    /// nor read: held for good). A part dropped after its last byte, not the last part, is over.
    deinit {
        guard !over.withLock({ $0 }) else { return }
        if remaining == 0 && !isLast {
            transfers.endPart(token)
        } else {
            whole.cancel()
        }
    }

    func read(maxBytes: Int) async throws -> Data? {
        do {
            guard remaining > 0 else {
                guard isLast else {
                    over.withLock { $0 = true }
                    transfers.endPart(token)
                    return nil
                }
                // Past the size, the download's reader fails a source that has more bytes.
                let tail = try await whole.read(maxBytes: 1)
                if tail == nil { over.withLock { $0 = true } }
                return tail
            }
            guard let chunk = try await whole.read(maxBytes: min(max(1, maxBytes), remaining)) else {
                over.withLock { $0 = true }
                return nil
            }
            remaining -= chunk.count
            return chunk
        } catch {
            over.withLock { $0 = true }
            throw error
        }
    }

    func cancel() {
        over.withLock { $0 = true }
        whole.cancel()
    }
}
