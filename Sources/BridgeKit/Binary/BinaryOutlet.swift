import Foundation

/// Where plain `Data` in a call's result or progress, or an event, goes: with the router's byte
/// transport attached (``BinaryTransfers``, which attaches itself), each `Data` value the router
/// writes into a call's final reply or progress, or into an event for a document of an origin
/// the router's policy admits (``BridgeRouter/pageDidAnnounceDocument(_:origin:)``), becomes a
/// download, exactly as if the task had put a placeholder from
/// ``BinaryTransfers/send(_:type:context:)`` there, and the page gets a `Uint8Array`. Without one, when no web view serves it
/// (``BinaryTransfers/isServed``), or for a call the byte transport does not serve (a subframe's,
/// one with no origin), `Data` is written as `JSONEncoder` writes it: a base64 string.
///
/// How: ``BridgeJSON``'s encoder writes `Data` through ``Writer/current``, a task-local value
/// that ``write(for:_:)`` binds while the router encodes a call's message; the writer offers the
/// bytes (``BinaryTransfers/offerWritten(_:context:)``) and collects the tokens, which the router
/// then lists in the envelope of the message it writes (docs/protocol.md, "Binary values"). An
/// event's writer has a context of no call, for the document on screen.
///
/// Thread-safe; one per router.
final class BinaryOutlet: Sendable {
    /// Writes `Data` values as downloads while a call's message is encoded.
    final class Writer: Sendable {
        /// The writer bound while the router encodes a call's message; `nil` elsewhere.
        @TaskLocal static var current: Writer?

        private let transfers: BinaryTransfers
        /// The call the message belongs to: set before anything is written (a synchronous task's
        /// context exists only once the router admitted the call).
        private let context: Locked<CallContext?>
        private let written = Locked<[String]>([])

        init(transfers: BinaryTransfers, context: CallContext?) {
            self.transfers = transfers
            self.context = Locked(context)
        }

        /// Names the call the message belongs to (for a synchronous task, once admitted).
        func bind(_ context: CallContext) {
            self.context.withLock { $0 = context }
        }

        /// The placeholder to write in place of `data`: `nil` when no call was bound or the byte
        /// transport does not serve the call (the encoder then writes base64).
        /// - Throws: ``BridgeError`` from ``BinaryTransfers/offerWritten(_:context:)``: over a
        ///   limit, or the page generation ended, or the web view closed.
        func placeholder(for data: Data) throws(BridgeError) -> BridgeBinary? {
            guard let context = context.withLock({ $0 }), BinaryOutlet.serves(context.source) else { return nil }
            let binary = try transfers.offerWritten(data, context: context)
            written.withLock { $0.append(binary.token) }
            return binary
        }

        /// The tokens of the downloads written so far, in order.
        var tokens: [String] { written.withLock { $0 } }

        /// Ends the downloads written so far (``BinaryOutlet/withdraw(_:)``).
        func withdraw() {
            let tokens = written.withLock { tokens in
                defer { tokens = [] }
                return tokens
            }
            for token in tokens { transfers.endOffer(token, .cancelled, bytes: 0) }
        }
    }

    private struct Reference {
        weak var transfers: BinaryTransfers?
    }

    private let reference = Locked(Reference())

    init() {}

    /// Makes `transfers` the router's byte transport (the latest attached wins).
    func attach(_ transfers: BinaryTransfers) {
        reference.withLock { $0.transfers = transfers }
    }

    /// Whether the byte transport serves calls from `source`: the main frame, with an origin
    /// (``BinaryTransfers``, "Binding").
    static func serves(_ source: MessageSource) -> Bool {
        source.isMainFrame && source.origin != nil
    }

    /// A writer for a message of the call `context` runs (set later with ``Writer/bind(_:)`` when
    /// `nil`); `nil` when no byte transport is attached, or no web view serves it
    /// (``BinaryTransfers/isServed``: the page could not fetch the bytes), so `Data` stays base64.
    func writer(for context: CallContext?) -> Writer? {
        guard let transfers = reference.withLock({ $0.transfers }), transfers.isServed else { return nil }
        if let context, !Self.serves(context.source) { return nil }
        return Writer(transfers: transfers, context: context)
    }

    /// Ends the downloads `tokens` written for a message that is not sent (over the payload
    /// limit, or its encoding failed), so the page will never fetch them.
    func withdraw(_ tokens: [String]) {
        guard !tokens.isEmpty, let transfers = reference.withLock({ $0.transfers }) else { return }
        for token in tokens { transfers.endOffer(token, .cancelled, bytes: 0) }
    }

    /// Runs `encode` (the encoding of a message of the call `context` runs) with its `Data`
    /// values written as downloads.
    /// - Returns: what `encode` returned, and the tokens of the downloads it wrote.
    /// - Throws: what `encode` throws (a ``BridgeError`` from a download over a limit among
    ///   them); the downloads written before it threw are withdrawn.
    func write<Value>(for context: CallContext, _ encode: () throws -> Value) throws -> (Value, [String]) {
        guard let writer = writer(for: context) else { return (try encode(), []) }
        do {
            let value = try Writer.$current.withValue(writer) { try encode() }
            return (value, writer.tokens)
        } catch {
            writer.withdraw()
            throw error
        }
    }
}
