public import Foundation

/// The bytes a page passed in a call, as a stream of chunks read from the page's request as the
/// task iterates (``BinaryTransfers/upload(of:context:)``). Iterate it once.
///
/// It ends exactly once: at the end of the body (finished), with an error (`payload_too_large`
/// over the declared size, the limit or a part's size (``BinaryLimits/partBytes``), `timeout` when the page's request never came,
/// `invalid_options` when the page sent a request against the rules of its transfer (a part out
/// of order, a second body; the refusal ends the upload at once),
/// `navigated` when the page's document was replaced, `unavailable` when the web view closed (the
/// codes the router gives the call itself then), a body that ended short: `invalid_options`), or
/// when the task stops iterating or is cancelled (cancelled: the page's request is answered and
/// its body stopped).
public final class BinaryUpload: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    /// The declared size, from the page's placeholder: the page's word, checked against
    /// ``BinaryLimits/maxTransferBytes`` and against the bytes that arrive (more or fewer end the
    /// upload), so do not size a buffer by it before the bytes are there.
    public let declaredSize: Int?
    private let transfers: BinaryTransfers
    private let token: String
    /// The page generation of the call that claimed it.
    private let generation: UInt64

    init(transfers: BinaryTransfers, token: String, declaredSize: Int?, generation: UInt64) {
        self.transfers = transfers
        self.token = token
        self.declaredSize = declaredSize
        self.generation = generation
    }

    deinit {
        // A task that never read (or stopped reading) the body: the transfer ends cancelled.
        transfers.endUpload(token, .cancelled)
    }

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(upload: self)
    }

    /// Reads the chunks.
    public struct Iterator: AsyncIteratorProtocol {
        private let upload: BinaryUpload
        private var body: (any BinaryBodyReader)?
        private var done = false

        init(upload: BinaryUpload) {
            self.upload = upload
        }

        /// The next chunk, or `nil` at the end of the body.
        /// - Throws: ``BridgeError`` as described on ``BinaryUpload``.
        public mutating func next() async throws -> Data? {
            guard !done else { return nil }
            let transfers = upload.transfers
            let token = upload.token
            do {
                var chunk: Data?
                while chunk == nil {
                    if body == nil {
                        guard let body = await transfers.awaitBody(token) else {
                            throw transfers.interruption(of: upload.generation)
                                ?? transfers.endingError(token)
                                ?? BridgeError.cancelled()
                        }
                        self.body = body
                    }
                    guard let body else { throw BridgeError.cancelled() }
                    chunk = try await withTaskCancellationHandler {
                        try await body.read(maxBytes: transfers.limits.pageReadBytes)
                    } onCancel: {
                        transfers.endUpload(token, .cancelled)
                    }
                    if chunk != nil { break }
                    // This request's body ended: the upload's end, or the next part's turn.
                    switch transfers.bodyEnded(token) {
                    case .finished:
                        done = true
                        return nil
                    case .nextPart:
                        self.body = nil
                    case .short:
                        done = true
                        let error = BridgeError.invalidOptions(
                            "The binary value ended before its declared size.", path: "")
                        transfers.endUpload(token, .failed(error.code), error: error)
                        throw error
                    case .gone:
                        throw BridgeError.cancelled()
                    }
                }
                guard let chunk else { throw BridgeError.cancelled() }
                if let (error, reason) = transfers.countUpload(token, bytes: chunk.count) {
                    transfers.endUpload(
                        token, error.code == "cancelled" ? .cancelled : .failed(error.code), error: error,
                        reason: reason)
                    throw error
                }
                return chunk
            } catch {
                done = true
                // A close or a navigation ends the body from outside: the task gets the code the
                // router gives the call then (unavailable, navigated), not what the cut body looked like.
                // An upload that a refused request of the page ended: the refusal's error.
                let bridgeError =
                    transfers.interruption(of: upload.generation)
                    ?? transfers.endingError(token)
                    ?? (error as? BridgeError)
                    ?? (Task.isCancelled ? .cancelled() : .cancelled("The page stopped sending the binary value."))
                transfers.endUpload(token, bridgeError.code == "cancelled" ? .cancelled : .failed(bridgeError.code))
                throw bridgeError
            }
        }
    }
}
