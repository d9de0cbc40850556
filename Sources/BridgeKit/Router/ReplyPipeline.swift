import Foundation

/// The one writer of native-to-page messages (docs/protocol.md): final replies (a result or an
/// error), progress, events, native-to-page calls and their cancels. It owns the envelope's
/// bytes and frames them in one of two ways:
///
/// - as a page script, `<receive>(<message>);void 0` (``script(_:)``, and for the common success
///   reply ``successScript(id:result:limit:)``, written straight into the script string), which
///   the router evaluates through its ``PageChannel``;
/// - as reply-handler text (``OutboundJSON/replyText``), the JSON the page's shim reads with
///   `JSON.parse` when a final reply goes back through the message's ``ReplyHandler``.
///
/// The envelope is written by hand, with its members in sorted-key order around the payloads
/// that ``BridgeJSON`` encodes alone (a task's result, an error, a progress value, an event's
/// data, a call's options): byte for byte the text of encoding the whole message with
/// ``BridgeJSON`` (the tests compare the two over many inputs), with each payload encoded once.
///
/// One rule for ids and names (``isPlain(_:)``): a string of printable ASCII other than `"`, `\`
/// and `<` is written as it is, between quotes; any other goes through ``BridgeJSON``, and a
/// script escapes it like the rest of the message (``JavaScriptEmbedding``).
///
/// Any thread; the time is linear in the message's length.
enum ReplyPipeline {
    // MARK: Ids

    /// Whether every byte of `text` is plain (``isPlainByte(_:)``): the text is written into JSON
    /// and into a script as it is. Reads the string's own UTF-8 storage when it has one (an id
    /// the envelope scan made always does), else its UTF-8 view.
    static func isPlain(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isPlainByte) } ?? text.utf8.allSatisfy(isPlainByte)
    }

    /// Whether a byte of an id or name needs no escape, in JSON and in a script: printable ASCII
    /// other than `"`, `\` and `<`.
    static func isPlainByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
            && byte != UInt8(ascii: "<")
    }

    /// `text` as a JSON string literal: as it is between quotes when plain (``isPlain(_:)``), else
    /// as ``BridgeJSON`` writes it.
    /// - Throws: what `JSONEncoder` throws (never for a string).
    static func quoted(_ text: String) throws -> Data {
        guard isPlain(text) else { return try BridgeJSON.encode(text) }
        var quoted = Data(capacity: text.utf8.count + 2)
        quoted.append(UInt8(ascii: "\""))
        quoted.append(contentsOf: text.utf8)
        quoted.append(UInt8(ascii: "\""))
        return quoted
    }

    // MARK: Envelopes

    /// The JSON text of a task's result: a ``RawJSON``'s own bytes (checked when it was made),
    /// or ``BridgeJSON``'s encoding.
    /// - Throws: `EncodingError` when the value cannot be encoded (for example `Double.nan`).
    static func resultJSON(_ value: any Encodable & Sendable) throws -> Data {
        // Comparing the dynamic type first spares every typed result a dynamic cast.
        if type(of: value) == RawJSON.self, let raw = value as? RawJSON { return raw.data }
        return try BridgeJSON.encode(value)
    }

    /// The JSON text of `message`, in pieces (``OutboundJSON``).
    /// - Throws: `EncodingError` when a payload cannot be encoded (for example `Double.nan`).
    static func json(_ message: borrowing OutboundMessage) throws -> OutboundJSON {
        switch copy message {
        case .reply(let id, .success(let value), let binary):
            return try success(id: id, result: resultJSON(value), binary: binary)
        case .reply(let id, .failure(let error), let binary):
            return try failure(id: id, error, binary: binary)
        case .progress(let id, let value, let binary):
            return try progress(id: id, data: BridgeJSON.encode(value), binary: binary)
        case .event(let name, let value):
            return try event(name: name, data: BridgeJSON.encode(value))
        case .call(let id, let handler, let options):
            return OutboundJSON(parts: [
                member(#"{"id":"#, try quoted(id), #","kind":"call","options":"#), try BridgeJSON.encode(options),
                member(#","task":"#, try quoted(handler), #","v":1}"#),
            ])
        case .cancel(let id):
            return OutboundJSON(member(#"{"id":"#, try quoted(id), #","kind":"cancel","v":1}"#))
        }
    }

    /// The JSON text of a successful final reply whose result's JSON text is `result`:
    /// `{"data":<result>,"id":<id>,"kind":"reply","ok":true,"v":1}`, the result not copied;
    /// with `{"binary":[<token>,…],` first when `binary` is not empty.
    /// - Parameter binary: the tokens of the downloads the reply introduces (docs/protocol.md,
    ///   "Binary values"): the envelope's `binary` member, which only native writes.
    /// - Throws: what ``quoted(_:)`` throws (never).
    static func success(id: String, result: Data, binary: [String] = []) throws -> OutboundJSON {
        OutboundJSON(parts: [
            try head(binary, firstKey: "data"), result,
            member(#","id":"#, try quoted(id), #","kind":"reply","ok":true,"v":1}"#),
        ])
    }

    /// The JSON text of a failed final reply:
    /// `{"error":<error>,"id":<id>,"kind":"reply","ok":false,"v":1}`; `binary` as in
    /// ``success(id:result:binary:)`` (the page records the tokens; the error settles the call).
    /// - Throws: `EncodingError` when the error's details cannot be encoded.
    static func failure(id: String, _ error: BridgeError, binary: [String] = []) throws -> OutboundJSON {
        OutboundJSON(parts: [
            try head(binary, firstKey: "error"), try BridgeJSON.encode(error),
            member(#","id":"#, try quoted(id), #","kind":"reply","ok":false,"v":1}"#),
        ])
    }

    /// The JSON text of a progress message whose value's JSON text is `data`:
    /// `{"data":<data>,"id":<id>,"kind":"progress","v":1}`; `binary` as in
    /// ``success(id:result:binary:)``.
    /// - Throws: what ``quoted(_:)`` throws (never).
    static func progress(id: String, data: Data, binary: [String] = []) throws -> OutboundJSON {
        OutboundJSON(parts: [
            try head(binary, firstKey: "data"), data,
            member(#","id":"#, try quoted(id), #","kind":"progress","v":1}"#),
        ])
    }

    /// The JSON text of an event whose data's JSON text is `data`:
    /// `{"data":<data>,"kind":"event","name":<name>,"v":1}`; `binary` as in
    /// ``success(id:result:binary:)``.
    /// - Throws: what ``quoted(_:)`` throws (never).
    static func event(name: String, data: Data, binary: [String] = []) throws -> OutboundJSON {
        OutboundJSON(parts: [
            try head(binary, firstKey: "data"), data,
            member(#","kind":"event","name":"#, try quoted(name), #","v":1}"#),
        ])
    }

    /// The start of an envelope up to its first payload: `{"<firstKey>":`, or with download
    /// tokens `{"binary":["<token>",…],"<firstKey>":` (`binary` sorts before `data` and `error`,
    /// so the members stay in sorted-key order).
    /// - Throws: what ``quoted(_:)`` throws (never).
    private static func head(_ binary: [String], firstKey: String) throws -> Data {
        guard !binary.isEmpty else { return firstKey == "data" ? dataHead : errorHead }
        var head = Data(#"{"binary":["#.utf8)
        for (index, token) in binary.enumerated() {
            if index > 0 { head.append(UInt8(ascii: ",")) }
            head.append(try quoted(token))
        }
        head.append(contentsOf: #"],""#.utf8)
        head.append(contentsOf: firstKey.utf8)
        head.append(contentsOf: #"":"#.utf8)
        return head
    }

    private static let dataHead = Data(#"{"data":"#.utf8)
    private static let errorHead = Data(#"{"error":"#.utf8)

    /// `before`, `quoted` and `after` joined.
    private static func member(_ before: String, _ quoted: Data, _ after: String) -> Data {
        var data = Data(capacity: before.utf8.count + quoted.count + after.utf8.count)
        data.append(contentsOf: before.utf8)
        data.append(quoted)
        data.append(contentsOf: after.utf8)
        return data
    }

    // MARK: Framing

    /// The page script handing `json` to ``PageFunction/receive``.
    static func script(_ json: OutboundJSON) -> String {
        PageScript.build(calling: .receive, jsonParts: json.parts)
    }

    /// The script of a successful final reply, `{"data":<result>,"id":<id>,"kind":"reply","ok":true,"v":1}`
    /// handed to ``PageFunction/receive``: the text of ``script(_:)`` for ``success(id:result:binary:)``,
    /// without the pieces or a second copy of the result.
    ///
    /// The script is written straight into the string's own storage
    /// (``successScriptInPlace(id:result:asciiOnly:)``: one pass counts the escaped result, a second
    /// writes it into a string of exactly that length), so the result exists twice at most (its
    /// JSON and the script), never three times. A result with a `"__proto__"` key (embedded
    /// through `JSON.parse`, rare) is built in a growing buffer instead
    /// (``successScriptInBuffer(id:result:asciiOnly:)``).
    ///
    /// - Parameters:
    ///   - id: the call id.
    ///   - result: the result's JSON text, as ``BridgeJSON`` wrote it or as ``RawJSON`` checked it.
    ///   - limit: the largest reply message allowed, in bytes of UTF-8
    ///     (``BridgeLimits/maxPayloadBytes``).
    /// - Returns: the script and the length of the reply message in bytes; `nil` when the id is
    ///   not plain (``isPlain(_:)``: ``script(_:)`` writes it) or the message is over `limit`
    ///   (the caller replies `payload_too_large`).
    static func successScript(id: String, result: Data, limit: Int) -> (script: String, messageBytes: Int)? {
        let idBytes = id.utf8.count
        let messageBytes = replyHead.count + result.count + replyIDStart.count + idBytes + 1 + replyTail.count
        guard messageBytes <= limit, isPlain(id) else { return nil }
        // The same choice as `PageScript.build(calling:jsonParts:)` makes (the rest of the message is ASCII).
        let asciiOnly = JavaScriptEmbedding.prefersASCII(
            messageBytes: messageBytes, nonASCIIIn: CollectionOfOne(result))
        let script =
            successScriptInPlace(id: id, result: result, asciiOnly: asciiOnly)
            ?? successScriptInBuffer(id: id, result: result, asciiOnly: asciiOnly)
        return (script, messageBytes)
    }

    /// ``successScript(id:result:limit:)`` written straight into the string's storage (for a
    /// result over ``singlePassLimit`` bytes: count, then write), or `nil` when the result has a
    /// `"__proto__"` key, or when the two passes disagree or the text is not valid UTF-8 (neither
    /// happens for JSON from `JSONEncoder` or `RawJSON`; the caller then builds it in a buffer
    /// rather than send a damaged reply). The id must be plain (``isPlain(_:)``). `asciiOnly`:
    /// write non-ASCII characters as `\u` escapes.
    static func successScriptInPlace(id: String, result: Data, asciiOnly: Bool = false) -> String? {
        successInPlace(
            id: id, result: result, framing: .script(asciiOnly: asciiOnly), prefix: replyStart,
            suffix: PageScript.ending)
    }

    /// The reply-handler text of a successful final reply (``OutboundJSON/replyText`` of
    /// ``success(id:result:binary:)``), written straight into the string's storage like
    /// ``successScriptInPlace(id:result:asciiOnly:)``.
    /// - Returns: the text and the length of the reply message in bytes; `nil` when the id is not
    ///   plain (``isPlain(_:)``), the message is over `limit`, or the two passes disagree (the
    ///   caller then writes it from the pieces).
    static func successText(id: String, result: Data, limit: Int) -> (text: String, messageBytes: Int)? {
        let messageBytes = replyHead.count + result.count + replyIDStart.count + id.utf8.count + 1 + replyTail.count
        guard messageBytes <= limit, isPlain(id),
            let text = successInPlace(id: id, result: result, framing: .replyText, prefix: replyHead, suffix: [])
        else { return nil }
        return (text, messageBytes)
    }

    /// The two framings of a message.
    enum Framing {
        /// A page script; `asciiOnly` as in ``successScriptInPlace(id:result:asciiOnly:)``.
        case script(asciiOnly: Bool)
        /// Reply-handler text (``OutboundJSON/replyText``).
        case replyText
    }

    /// Writes the JSON text `json` with the escapes of `framing` to `sink`.
    /// - Returns: whether a script saw a `"__proto__"` key (the text written must then be discarded).
    private static func escape<Sink: EscapeSink>(
        _ json: UnsafeBufferPointer<UInt8>, framing: Framing, to sink: inout Sink
    ) -> Bool {
        switch framing {
        case .script(let asciiOnly):
            return JavaScriptEmbedding.appendExpressionUnlessProtoKey(fromJSON: json, to: &sink, asciiOnly: asciiOnly)
        case .replyText:
            JavaScriptEmbedding.appendASCIIJSON(fromJSON: json, to: &sink)
            return false
        }
    }

    /// `prefix`, the result escaped for `framing`, the id member and the rest of a successful
    /// reply, and `suffix`, written into a string of the right size (see
    /// ``successScriptInPlace(id:result:asciiOnly:)``); `nil` when a script's result has a
    /// `"__proto__"` key or the passes disagree.
    private static func successInPlace(
        id: String, result: Data, framing: Framing, prefix: [UInt8], suffix: [UInt8]
    ) -> String? {
        let fixed = prefix.count + replyIDStart.count + id.utf8.count + 1 + replyTail.count + suffix.count
        let counted = result.count > singlePassLimit
        let length: Int
        if !counted {
            // Small: no counting pass; room for the longest escaping (6 bytes for each byte, `<`
            // as `\u003c`), which the string gives back when it is freed moments later.
            length = fixed + result.count * 6
        } else {
            var counter = EscapeCounter()
            let sawProtoKey = result.withUnsafeBytes { raw in
                escape(raw.bindMemory(to: UInt8.self), framing: framing, to: &counter)
            }
            guard !sawProtoKey else { return nil }
            length = fixed + counter.count
        }
        var written = -1
        let script = String(unsafeUninitializedCapacity: length) { buffer in
            var writer = EscapeBufferWriter(buffer)
            prefix.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            let sawProtoKey = result.withUnsafeBytes { raw in
                escape(raw.bindMemory(to: UInt8.self), framing: framing, to: &writer)
            }
            guard !sawProtoKey else { return 0 }
            replyIDStart.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            var id = id
            id.withUTF8 { writer.append(contentsOf: $0) }
            writer.append(UInt8(ascii: "\""))
            replyTail.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            suffix.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            if !writer.overflowed { written = writer.count }
            return writer.count
        }
        // The string repairs invalid UTF-8, which changes its length.
        guard written >= 0, !counted || written == length, script.utf8.count == written else { return nil }
        return script
    }

    /// Results up to this many bytes are written in one pass into a string with room for any
    /// escaping (at most 6 times their length); longer ones are counted first, so that the
    /// string is exactly as long as the script.
    static let singlePassLimit = 4096

    /// ``successScript(id:result:limit:)`` built in a growing byte array and then copied into a
    /// string; for what ``successScriptInPlace(id:result:asciiOnly:)`` leaves. The id must be
    /// plain (``isPlain(_:)``); `asciiOnly` as there.
    static func successScriptInBuffer(id: String, result: Data, asciiOnly: Bool = false) -> String {
        var script = [UInt8]()
        // Room for the escapes of a result with many `<` (6 bytes each) without growing.
        script.reserveCapacity(
            replyStart.count + result.count + result.count / 8 + id.utf8.count + replyTail.count + 32)
        script.append(contentsOf: replyStart)
        result.withUnsafeBytes { raw in
            JavaScriptEmbedding.appendExpression(
                fromJSON: raw.bindMemory(to: UInt8.self), to: &script, asciiOnly: asciiOnly)
        }
        script.append(contentsOf: replyIDStart)
        script.append(contentsOf: id.utf8)
        script.append(UInt8(ascii: "\""))
        script.append(contentsOf: replyTail)
        script.append(contentsOf: PageScript.ending)
        return String(decoding: script, as: UTF8.self)
    }

    private static let replyHead: [UInt8] = Array(#"{"data":"#.utf8)
    /// `<receive function>({"data":`.
    private static let replyStart: [UInt8] = Array(PageFunction.receive.source.utf8) + [UInt8(ascii: "(")] + replyHead
    private static let replyIDStart: [UInt8] = Array(#","id":""#.utf8)
    private static let replyTail: [UInt8] = Array(#","kind":"reply","ok":true,"v":1}"#.utf8)
}

/// The JSON text of one native-to-page message, kept in the pieces ``ReplyPipeline`` wrote it in.
///
/// A message is its payload, encoded once, between fixed members; keeping the pieces lets the
/// script builder escape each into the script directly, without first joining them into one more
/// copy of the payload. Joined, the pieces are exactly the text `JSONEncoder` writes for the whole
/// message.
struct OutboundJSON: Sendable {
    /// The pieces, in order; each one starts and ends outside any JSON string or number.
    let parts: [Data]

    /// A text in one piece.
    init(_ data: Data) {
        parts = [data]
    }

    /// A text in pieces (see ``parts``).
    init(parts: [Data]) {
        self.parts = parts
    }

    /// The length of the text in bytes of UTF-8.
    var count: Int {
        parts.reduce(0) { $0 + $1.count }
    }

    /// The text as a `String`, copied once from the pieces.
    var text: String {
        if parts.count == 1 { return String(decoding: parts[0], as: UTF8.self) }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var offset = 0
            for part in parts {
                part.withUnsafeBytes { raw in
                    guard let base = buffer.baseAddress else { return }
                    UnsafeMutableRawBufferPointer(start: base + offset, count: raw.count).copyMemory(from: raw)
                }
                offset += part.count
            }
            return offset
        }
    }

    /// The text for a reply handed to the engine as a string (``ReplyHandler``), which the page
    /// reads with `JSON.parse`: the same JSON value as ``text``, with the script builder's escapes
    /// (integers outside ±(2^53−1) as strings of the same digits, field case R11; U+2028, U+2029
    /// and `<` as `\u` escapes) and every non-ASCII character written as a `\u` escape (a
    /// surrogate pair above U+FFFF).
    ///
    /// Pure ASCII because JavaScriptCore keeps a string that has only Latin-1 characters in one
    /// byte per character and converts it from UTF-8 with a plain copy, while a single character
    /// above U+00FF makes the whole string two bytes per character.
    var replyText: String {
        // Two passes over the pieces: one counts the output, one writes it straight into the
        // string's storage, so the reply exists once (no intermediate array, no second copy).
        var counter = EscapeCounter()
        for part in parts {
            part.withUnsafeBytes { raw in
                JavaScriptEmbedding.appendASCIIJSON(fromJSON: raw.bindMemory(to: UInt8.self), to: &counter)
            }
        }
        var overflowed = false
        let text = String(unsafeUninitializedCapacity: counter.count) { buffer in
            var writer = EscapeBufferWriter(buffer)
            for part in parts {
                part.withUnsafeBytes { raw in
                    JavaScriptEmbedding.appendASCIIJSON(fromJSON: raw.bindMemory(to: UInt8.self), to: &writer)
                }
            }
            overflowed = writer.overflowed
            return writer.count
        }
        // Both passes write the same bytes; a mismatch would be a bug in the escaper. Fall back
        // to a growing buffer rather than send a truncated reply.
        guard overflowed || text.utf8.count != counter.count else { return text }
        var out = [UInt8]()
        for part in parts {
            part.withUnsafeBytes { raw in
                JavaScriptEmbedding.appendASCIIJSON(fromJSON: raw.bindMemory(to: UInt8.self), to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

// MARK: - Sending

extension BridgeRouter {
    /// A message framed as a page script, on its way to ``send(_:)``, with what the traffic log
    /// says of it.
    struct OutgoingScript: Sendable {
        /// The script, built by ``ReplyPipeline``.
        let script: String
        /// The length of the message it carries, in bytes of UTF-8 JSON.
        let bytes: Int
        let kind: TrafficKind
        let id: String?
        let task: String?
        /// For a final reply: `"ok"` or the error code.
        var outcome: String? = nil
        /// The internal error description for the log (``TrafficRecord/internalError``).
        var internalError: String? = nil
        /// The page generation the message belongs to: it is not sent to a later page.
        let generation: UInt64
        /// The channel to evaluate it in; `nil`: the one connected when it is sent.
        var channel: PageChannel? = nil
        /// For progress: its call, so that progress waiting for the document stops with the call.
        var call: PendingCall? = nil

        /// The call whose settling ends its wait for cancels (``CancelOrder/ended(_:)``): a
        /// native-to-page call's script, or a progress of a page's call.
        var owner: ScriptOwner? {
            switch kind {
            case .call: id.map { ScriptOwner.pageCall($0) }
            case .progress: id.map { ScriptOwner.progress($0) }
            default: nil
            }
        }
    }

    /// A script waiting for its document (``DocumentWait``) and its sender, who waits for the
    /// result of its evaluation: `true` or `false` from the flusher, `nil` when the sender is to
    /// send it itself (let go when its generation ended).
    struct HeldScript: Sendable {
        let script: OutgoingScript
        let sender: CheckedContinuation<Bool?, Never>
    }

    /// The page as a script finds it when it goes out (``RouterState/scriptTarget``).
    struct ScriptTarget: Sendable {
        var channel: PageChannel?
        let generation: UInt64
        let document: String?
    }

    /// Evaluates `outgoing` in the page, unless the page changed since its generation or there is
    /// no channel; either way the traffic log says what happened. The one place where a script
    /// reaches the page. A script of a generation whose document has not named itself yet waits
    /// for it, in order with the others (``DocumentWait``).
    /// - Returns: whether the engine evaluated the script without error.
    /// What ``send(_:)`` does with a script (``RouterState/route(_:checksCancels:)``).
    enum SendRoute {
        /// Evaluate it in the page as `target` finds it.
        case deliver(ScriptTarget)
        /// Hold it until its document names itself (``DocumentWait``).
        case hold
        /// Wait until the cancels of its generation up to number `upTo` were evaluated
        /// (``CancelOrder``), then route it again, without waiting for later ones.
        case waitForCancels(upTo: UInt64)
        /// Drop it: no longer wanted (``RouterState/handOver(_:)``).
        case drop
    }

    @discardableResult
    func send(_ outgoing: OutgoingScript) async -> Bool {
        var checksCancels = true
        while true {
            switch state.withLock({ $0.route(outgoing, checksCancels: checksCancels) }) {
            case .deliver(let target):
                return await deliver(outgoing, to: target)
            case .drop:
                record(outgoing, reason: .notDelivered, bytes: 0)
                return false
            case .waitForCancels(let upTo):
                await waitForCancels(upTo: upTo, for: outgoing)
                checksCancels = false
            case .hold:
                // `nil`: let go (its generation ended, or it was not held after all): routed again.
                if let result = await hold(outgoing) { return result }
            }
        }
    }

    /// Holds `outgoing` until its document names itself (``DocumentWait``).
    /// - Returns: whether the flusher delivered it; `nil` when it was let go or not held.
    private func hold(_ outgoing: OutgoingScript) async -> Bool? {
        await withCheckedContinuation { sender in
            let held = state.withLock { state -> Bool in
                // The notice, a commit or the close may have come since the route was chosen.
                guard state.mustHold(outgoing) else { return false }
                state.documentWait.hold(.init(script: outgoing, sender: sender)) { [weak self] epoch in
                    self?.documentWaitDeadlinePassed(epoch: epoch)
                }
                return true
            }
            if !held { sender.resume(returning: nil) }
        }
    }

    /// Returns once the cancels of `outgoing`'s generation up to number `upTo` were evaluated, the
    /// generation ended, the router closed, `outgoing`'s call settled (it is then dropped), or
    /// ``CancelOrder/limit`` passed (``CancelOrder``).
    private func waitForCancels(upTo: UInt64, for outgoing: OutgoingScript) async {
        await waitForCancels(upTo: upTo, generation: outgoing.generation, owner: outgoing.owner)
    }

    /// Returns once the cancels of `generation` up to number `upTo` were evaluated, the
    /// generation ended, the router closed, the call `owner` settled (also before it registers),
    /// or ``CancelOrder/limit`` passed (``CancelOrder``).
    func waitForCancels(upTo: UInt64, generation: UInt64, owner: ScriptOwner? = nil) async {
        await withCheckedContinuation { waiter in
            let registration = state.withLock { state -> (ticket: UInt64, limit: Duration)? in
                // A generation that ended (or a close), or a call that settled, since the barrier
                // was read releases nothing later.
                guard !state.isClosed, state.generation == generation, owner.map(state.isLive) ?? true,
                    let ticket = state.cancelOrder.wait(upTo: upTo, generation: generation, owner: owner, waiter)
                else { return nil }
                return (ticket, state.cancelOrder.limit)
            }
            guard let registration else { return waiter.resume() }
            Task { [weak self] in
                try? await Task.sleep(for: registration.limit)
                self?.state.withLock { $0.cancelOrder.expired(registration.ticket) }?.resume()
            }
        }
    }

    /// Sends the held scripts of generation `epoch` in the order they were held, one at a time,
    /// until none is left (``DocumentWait``); tells ``BridgeRouter/close()`` when it is done.
    func drainHeldScripts(epoch: UInt64) async {
        while let (held, closingChannel, wanted, current) = state.withLock({ state in
            state.documentWait.next(epoch: epoch).map { held, closingChannel in
                (held, closingChannel, state.handOver(held.script), state.scriptTarget)
            }
        }) {
            // A call or progress whose call settled while it waited (its timeout, a cancel,
            // close()) is not sent (``RouterState/handOver(_:)``).
            guard wanted else {
                record(held.script, reason: .notDelivered, bytes: 0)
                held.sender.resume(returning: false)
                continue
            }
            var target = current
            if target.channel == nil { target.channel = closingChannel }
            held.sender.resume(returning: await deliver(held.script, to: target))
        }
        for waiter in state.withLock({ $0.documentWait.drainEnded(epoch: epoch) }) { waiter.resume() }
    }

    /// Ends the wait of generation `epoch` for its document: its held scripts go out unbound.
    private func documentWaitDeadlinePassed(epoch: UInt64) {
        let action = state.withLock { $0.documentWait.deadlinePassed(epoch: epoch) }
        perform(action)
    }

    /// Starts what a ``DocumentWait`` event asked for.
    func perform(_ action: DocumentWait<HeldScript>.Action) {
        guard case .drain(let epoch) = action else { return }
        Task { await drainHeldScripts(epoch: epoch) }
    }

    /// Evaluates `outgoing` in `target`, bound to its document where the host can.
    func deliver(_ outgoing: OutgoingScript, to target: ScriptTarget) async -> Bool {
        let reason: TrafficReason
        if outgoing.generation != target.generation {
            reason = .navigated
        } else if let channel = outgoing.channel ?? target.channel {
            do {
                // Bound to the generation's document where the host can: a script still on its
                // way when another document commits must reach nobody (docs/protocol.md,
                // "Document notice").
                if let document = target.document, let evaluateForDocument = channel.evaluateForDocument,
                    let function = PageFunction.deliver(toDocument: document),
                    let bound = PageScript.rebinding(outgoing.script, to: function)
                {
                    try await evaluateForDocument(bound)
                } else {
                    try await channel.evaluate(outgoing.script)
                }
                record(outgoing, reason: nil, bytes: outgoing.bytes)
                return true
            } catch {
                record(outgoing, reason: .evaluateFailed("\(error)"), bytes: outgoing.bytes)
                return false
            }
        } else {
            reason = .noChannel
        }
        record(outgoing, reason: reason, bytes: 0)
        return false
    }

    private func record(_ outgoing: OutgoingScript, reason: TrafficReason?, bytes: Int) {
        record(
            .outbound, outgoing.kind, id: outgoing.id, task: outgoing.task, outcome: outgoing.outcome, reason: reason,
            bytes: bytes, internalError: outgoing.internalError)
    }

    /// Writes the final reply of call `id` by its route (``CallStateMachine/Route``): answers the
    /// reply handler now, logs a reply that has no way to the page, or returns the script for
    /// ``send(_:)``. A result that cannot be encoded is replied `invalid_result`, a reply over
    /// ``BridgeLimits/maxPayloadBytes`` `payload_too_large`.
    ///
    /// Takes `outcome` over: passed with `consume`, a result value is released as soon as its
    /// JSON is written, and the JSON as soon as the reply's text is.
    /// - Parameters:
    ///   - channel: the channel the returned script names (`nil`: the one connected when it is
    ///     sent).
    ///   - binary: the tokens of the downloads the reply introduces, written in its envelope
    ///     (``ReplyPipeline/success(id:result:binary:)``); a reply with none takes the fast paths.
    ///   - afterCancels: for a reply handler's answer, the newest cancel in flight it follows
    ///     (``CancelOrder``): written now, answered once the cancels up to it were evaluated.
    ///   - call: the call replied to, whose result's `Data` values become downloads listed with
    ///     `binary` (``BinaryOutlet``); `nil` writes them as base64.
    func writeFinalReply(
        _ outcome: consuming Result<any Encodable & Sendable, BridgeError>, id: String, task: String,
        route: CallStateMachine.Route, generation: UInt64, channel: PageChannel? = nil, binary: [String] = [],
        afterCancels: UInt64? = nil, call: PendingCall? = nil
    ) -> OutgoingScript? {
        let json: Result<Data, BridgeError>
        var binary = binary
        switch consume outcome {
        case .success(let value):
            do {
                if let call {
                    let (result, written) = try binaryOutlet.write(for: CallContext(call: call)) {
                        try ReplyPipeline.resultJSON(value)
                    }
                    json = .success(result)
                    binary += written
                } else {
                    json = .success(try ReplyPipeline.resultJSON(value))
                }
            } catch let error as BridgeError {
                // A download over a limit (``BinaryOutlet``), or the task's own `encode(to:)`.
                json = .failure(error)
            } catch {
                // The encoder's error may come from the task's own `encode(to:)`: only for the log.
                json = .failure(.resultNotEncodable(error))
            }
        case .failure(let error):
            json = .failure(error)
        }
        return writeFinalReply(
            json: consume json, id: id, task: task, route: route, generation: generation, channel: channel,
            binary: binary, afterCancels: afterCancels)
    }

    /// ``writeFinalReply(_:id:task:route:generation:channel:binary:afterCancels:call:)`` for a result
    /// already written as JSON text (a ``SynchronousBridgeTask``'s, or one that step wrote).
    func writeFinalReply(
        json reply: consuming Result<Data, BridgeError>, id: String, task: String, route: CallStateMachine.Route,
        generation: UInt64, channel: PageChannel? = nil, binary: [String] = [], afterCancels: UInt64? = nil
    ) -> OutgoingScript? {
        let limit = configuration.limits.maxPayloadBytes
        switch route {
        case .script:
            // The common final reply: its result written straight into the script.
            if binary.isEmpty, case .success(let result) = reply,
                let fast = ReplyPipeline.successScript(id: id, result: result, limit: limit)
            {
                return OutgoingScript(
                    script: fast.script, bytes: fast.messageBytes, kind: .reply, id: id, task: task, outcome: "ok",
                    generation: generation, channel: channel)
            }
            let message = Self.finalReplyJSON(consume reply, id: id, limit: limit, binary: binary)
            return OutgoingScript(
                script: ReplyPipeline.script(message.json), bytes: message.json.count, kind: .reply, id: id,
                task: task, outcome: message.outcome, internalError: message.internalError, generation: generation,
                channel: channel)
        case .replyHandler(let replyHandler) where afterCancels != nil:
            // Written now (the result value goes), answered once the cancels before it were
            // evaluated; held against the budget meanwhile, as a reply script waiting to be sent.
            let message = Self.finalReplyJSON(consume reply, id: id, limit: limit, binary: binary)
            let bytes = message.json.count
            let text = message.json.replyText
            budget.charge(bytes)
            Task { [self] in
                await waitForCancels(upTo: afterCancels ?? 0, generation: generation)
                let answered = replyHandler.reply(text)
                record(
                    .outbound, .reply, id: id, task: task, outcome: message.outcome,
                    reason: answered ? nil : .noReplyPath, bytes: answered ? bytes : 0,
                    internalError: message.internalError)
                budget.release(bytes, for: .mainFrame)
            }
        case .replyHandler(let replyHandler):
            // The common final reply: its result written straight into the text.
            if binary.isEmpty, case .success(let result) = reply,
                let fast = ReplyPipeline.successText(id: id, result: result, limit: limit)
            {
                _ = consume reply  // the result's JSON is not needed once the text exists
                let answered = replyHandler.reply(fast.text)
                record(
                    .outbound, .reply, id: id, task: task, outcome: "ok", reason: answered ? nil : .noReplyPath,
                    bytes: answered ? fast.messageBytes : 0)
                return nil
            }
            let message = Self.finalReplyJSON(consume reply, id: id, limit: limit, binary: binary)
            let bytes = message.json.count
            let answered = replyHandler.reply(message.json.replyText)
            record(
                .outbound, .reply, id: id, task: task, outcome: message.outcome,
                reason: answered ? nil : .noReplyPath, bytes: answered ? bytes : 0,
                internalError: message.internalError)
        case .none:
            let message = Self.finalReplyJSON(consume reply, id: id, limit: limit)
            record(
                .outbound, .reply, id: id, task: task, outcome: message.outcome, reason: .noReplyPath,
                internalError: message.internalError)
        }
        return nil
    }

    /// The JSON text of a final reply, its outcome for the log and the internal error description
    /// (``TrafficRecord/internalError``): `payload_too_large` in place of a reply over `limit`,
    /// `invalid_result` in place of an error that cannot be encoded. `binary`: the download tokens
    /// the reply introduces (``ReplyPipeline/success(id:result:binary:)``); a replacement error
    /// carries none (its placeholders never reach the page).
    static func finalReplyJSON(
        _ reply: consuming Result<Data, BridgeError>, id: String, limit: Int, binary: [String] = []
    ) -> (json: OutboundJSON, outcome: String, internalError: String?) {
        let replacement: BridgeError
        let internalError: String?
        switch consume reply {
        case .success(let result):
            internalError = nil
            do {
                let json = try ReplyPipeline.success(id: id, result: result, binary: binary)
                if json.count <= limit { return (json, "ok", nil) }
                replacement = .payloadTooLarge(bytes: json.count, limit: limit)
            } catch {
                replacement = .resultNotEncodable(error)
            }
        case .failure(let error):
            internalError = error.internalDescription
            do {
                let json = try ReplyPipeline.failure(id: id, error, binary: binary)
                if json.count <= limit { return (json, error.code, internalError) }
                replacement = .payloadTooLarge(bytes: json.count, limit: limit)
            } catch {
                replacement = .resultNotEncodable(error)
            }
        }
        let json = (try? ReplyPipeline.failure(id: id, replacement)) ?? OutboundJSON(Data())
        return (json, replacement.code, internalError ?? replacement.internalDescription)
    }

    /// Writes and sends the final reply of a call that settled (``writeFinalReply(_:id:task:route:generation:channel:binary:afterCancels:call:)``,
    /// then ``send(_:)``), with the download tokens the call has not sent yet
    /// (``CallStateMachine/takeBinaryTokens()``).
    func sendFinalReply(
        _ outcome: consuming Result<any Encodable & Sendable, BridgeError>, of call: PendingCall,
        channel: PageChannel? = nil, afterCancels: UInt64? = nil
    ) async {
        let binary = state.withLock { _ in call.machine.takeBinaryTokens() }
        if let outgoing = writeFinalReply(
            consume outcome, id: call.id, task: call.taskName, route: call.route, generation: call.generation,
            channel: channel, binary: binary, afterCancels: afterCancels, call: call)
        {
            await send(outgoing)
        }
    }

    /// The JSON text of a message the router sends on its own (an event, a native-to-page call or
    /// its cancel), within ``BridgeLimits/maxPayloadBytes``.
    /// - Throws: `invalid_result` when it cannot be encoded; `payload_too_large` over the limit.
    func encodeForPage(_ message: OutboundMessage) throws -> OutboundJSON {
        let json: OutboundJSON
        do {
            json = try ReplyPipeline.json(message)
        } catch {
            throw BridgeError.invalidResult("The value could not be encoded as JSON: \(error)")
        }
        let limit = configuration.limits.maxPayloadBytes
        guard json.count <= limit else { throw BridgeError.payloadTooLarge(bytes: json.count, limit: limit) }
        return json
    }

    /// Runs `encode`, the encoding of a progress value: a ``BridgeError`` (a download over a
    /// limit) as it is, any other error as `invalid_result`.
    private static func progressJSON<Value>(_ encode: () throws -> Value) throws(BridgeError) -> Value {
        do {
            return try encode()
        } catch let error as BridgeError {
            throw error
        } catch {
            throw BridgeError.resultNotEncodable(error, what: "The progress value")
        }
    }

    /// Sends a progress value of `call` (``PendingCall/sendProgress(_:)``): enforces the
    /// per-call limit and order, and stops with the call (never reaching a later call that
    /// reuses the id).
    func sendProgress(_ value: any Encodable & Sendable, call: PendingCall) async throws {
        let id = call.id
        let limit = configuration.limits.maxProgressPerCall
        let (action, progressWaiters) = state.withLock { state in
            let action = state.handle(.progress, of: call)
            guard case .settle = action else { return (action, [CheckedContinuation<Void, Never>]()) }
            // Its earlier progress waiting for cancels stops: it is dropped now.
            return (action, state.cancelOrder.ended(ScriptOwner.progress(call.id)))
        }
        for waiter in progressWaiters { waiter.resume() }
        switch action {
        case .none, .cancelWork, .refuseProgress:
            throw BridgeError.cancelled("The call has already settled.")
        case .settle(let work, let timer):
            // The value past the limit settles the call; its reply goes from a new task, so that
            // cancelling the work that sent it does not interrupt it, and after that cancel: the
            // work may give up a `callPage`, whose cancel the reply then follows (``CancelOrder``).
            timer?.cancel()
            work?.cancel()
            let afterCancels = state.withLock { $0.replyHandlerBarrier(for: call) }
            Task {
                await sendFinalReply(
                    .failure(.progressLimitExceeded(limit: limit)), of: call, afterCancels: afterCancels)
            }
            throw BridgeError.progressLimitExceeded(limit: limit)
        case .sendProgress:
            let maxBytes = configuration.limits.maxPayloadBytes
            guard call.replyHandler?.carriesFinalReplies ?? true, call.source.isMainFrame else {
                // Subframe calls have no ordered script path to their frame; progress is not delivered
                // (its download tokens stay with the call, for its final reply). Its size is still checked.
                let json = try ReplyPipeline.progress(id: id, data: Self.progressJSON { try BridgeJSON.encode(value) })
                guard json.count <= maxBytes else {
                    throw BridgeError.payloadTooLarge(bytes: json.count, limit: maxBytes)
                }
                record(.outbound, .progress, id: id, task: call.taskName, reason: .subframeNotDelivered)
                return
            }
            // Encoded once it has a place on the way to the page (``OutboundWindow``): parallel
            // workers' values wait their turn as values, not as scripts.
            try await inOutboundWindow {
                // Its `Data` values become downloads (``BinaryOutlet``); they and the download tokens
                // the call has not sent yet ride this message's envelope.
                let (data, written) = try Self.progressJSON {
                    try binaryOutlet.write(for: CallContext(call: call)) { try BridgeJSON.encode(value) }
                }
                let taken = state.withLock { _ in call.machine.takeBinaryTokens() }
                let json = try ReplyPipeline.progress(id: id, data: data, binary: taken + written)
                guard json.count <= maxBytes else {
                    state.withLock { _ in call.machine.restoreBinaryTokens(taken) }
                    binaryOutlet.withdraw(written)
                    throw BridgeError.payloadTooLarge(bytes: json.count, limit: maxBytes)
                }
                await send(
                    OutgoingScript(
                        script: ReplyPipeline.script(json), bytes: json.count, kind: .progress, id: id,
                        task: call.taskName, generation: call.generation, call: call))
            }
        }
    }
}
