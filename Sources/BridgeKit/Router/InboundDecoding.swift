import Foundation

// Inbound decoding: one decoder (`InboundDecoder`) with three admission cases for a
// page-to-native message (`InboundAdmission`), which the router switches over.
//
// 1. The fast envelope scan (`CallEnvelopeScan`): a plain call envelope, as the shim always sends
//    it, read in one strict pass; an asynchronous task's call is admitted with its body, and its
//    work decodes only the `options` bytes where the task runs (`CallInput`).
// 2. The synchronous task's case: the same scan; the task's own step decodes the options, runs
//    and encodes in one pass on the delivering thread (`BridgeRouter.respondSynchronously`).
// 3. The general path (`BodyScan`, then `InboundEnvelope.decodeWhole`): every other message
//    (cancel, a page's reply, an unusual envelope).
//
// Options are decoded once, wherever that happens, and one function says which error the page
// gets when they do not decode (`InboundEnvelope.optionsError(_:)`).

/// What ``InboundDecoder`` made of one message: the case by which the router admits it.
enum InboundAdmission {
    /// A plain call envelope (fast scan) of an asynchronous task, with an id, that the policy
    /// allows: admitted with its body; its work decodes the options (``CallInput/text(_:options:)``).
    case deferredCall(id: String, taskName: String, PreparedCall)
    /// A plain call envelope (fast scan) of a ``SynchronousBridgeTask``, with an id, that the
    /// policy allows: decoded, run and answered in one step (``BridgeRouter/respondSynchronously(_:in:owner:source:replyHandler:)``).
    case synchronousCall(SynchronousCall)
    /// A decoded message: a call whose options are decoded (or the error to answer it with), a
    /// cancel, a page's reply, or a message that is not usable (``InboundMessage/invalid(id:error:)``).
    case message(InboundMessage)
    /// A body refused before its envelope could be read (too large, too deep, not JSON), with the
    /// id its first members name, if any.
    case unreadable(id: String?, BridgeError)
    /// A call that arrived after ``BridgeRouter/close()``: answered `unavailable`.
    case closed(id: String?, taskName: String)
}

extension InboundAdmission {
    /// The same admission with no id longer than ``InboundDecoder/maxIDBytes``: a call whose id
    /// is longer is refused `invalid_message` under no id, so it is logged, never run and never
    /// answered, and the id of any other refusal is dropped. A cancel or a page's reply keeps its
    /// id: it names no call of that length, so it changes nothing.
    ///
    /// Every answer repeats its call's id, so an id of any length made the app write, scan and
    /// send back as much as the page sent: 64 bodies of 15 MiB that were one id held up another
    /// view's calls for seconds (attack 18).
    consuming func limitingIDs() -> InboundAdmission {
        // Consuming, so that the usual admission (an id of usable length) is passed on, not
        // copied with every reference it holds.
        guard let refusal = idRefusal else { return self }
        return refusal
    }

    /// What replaces this admission when its id is longer than ``InboundDecoder/maxIDBytes``,
    /// or `nil` when it has no such id.
    private var idRefusal: InboundAdmission? {
        switch self {
        case .deferredCall(let id, _, _):
            InboundDecoder.isUsable(id) ? nil : .unreadable(id: nil, InboundDecoder.idTooLong)
        case .synchronousCall(let call):
            InboundDecoder.isUsable(call.id) ? nil : .unreadable(id: nil, InboundDecoder.idTooLong)
        case .message(.call(let call)):
            InboundDecoder.isUsable(call.id) ? nil : .unreadable(id: nil, InboundDecoder.idTooLong)
        case .message(.invalid(let id, let error)):
            InboundDecoder.isUsable(id) ? nil : .message(.invalid(id: nil, error: error))
        case .unreadable(let id, let error):
            InboundDecoder.isUsable(id) ? nil : .unreadable(id: nil, error)
        case .closed(let id, let taskName):
            InboundDecoder.isUsable(id) ? nil : .closed(id: nil, taskName: taskName)
        case .message:
            nil
        }
    }
}

/// A plain call of a ``SynchronousBridgeTask`` (``InboundAdmission/synchronousCall(_:)``).
struct SynchronousCall {
    let id: String
    let taskName: String
    let task: AnyBridgeTask
    /// The task's one-pass step.
    let respond: SynchronousResponder
    /// The byte range of the `options` value in the body, or `nil` when absent (JSON `null`).
    let options: Range<Int>?
}

/// The one inbound decoder: reads a page-to-native message and says by which case the router
/// admits it (``InboundAdmission``). Any thread; holds only constants.
struct InboundDecoder: Sendable {
    /// The router's limits (``BridgeLimits/maxPayloadBytes``, ``BridgeLimits/maxDepth``).
    let limits: BridgeLimits
    /// The router's policy, for a task without its own.
    let policy: AccessPolicy

    /// Decodes `text`, the bytes of `body` (only read during the call), from `source`; reads the
    /// task table and whether the router is closed from `state`, under its lock, once.
    ///
    /// A plain call envelope takes the fast scan (``CallEnvelopeScan``); every other body the
    /// general path (``BodyScan``, then ``InboundEnvelope/decodeWhole(_:tasks:source:policy:)``).
    /// The policy refuses a call before anything else is decoded, then an unknown task is
    /// refused, then the options are decoded (or deferred to the call's work).
    ///
    /// No admission has an id longer than ``maxIDBytes`` (``InboundAdmission/limitingIDs()``).
    @inline(__always)
    func admission(
        of text: UnsafeBufferPointer<UInt8>, body: CallBody, from source: MessageSource, state: Locked<RouterState>
    ) -> InboundAdmission {
        scannedAdmission(of: text, body: body, from: source, state: state).limitingIDs()
    }

    /// ``admission(of:body:from:state:)`` before its ids are limited.
    @inline(__always)
    private func scannedAdmission(
        of text: UnsafeBufferPointer<UInt8>, body: CallBody, from source: MessageSource, state: Locked<RouterState>
    ) -> InboundAdmission {
        if text.count >= Self.earlyRefusalBytes, let refusal = earlyRefusal(of: text, from: source, state: state) {
            return refusal
        }
        guard text.count <= limits.maxPayloadBytes, let scan = CallEnvelopeScan(text) else {
            return generalAdmission(of: text, from: source, state: state)
        }
        if scan.depth > limits.maxDepth {
            return .unreadable(id: scan.id, .nestingTooDeep(limit: limits.maxDepth))
        }
        let (task, isClosed) = state.withLock { ($0.taskTable.task(named: scan.task), $0.isClosed) }
        if isClosed { return .closed(id: scan.id, taskName: scan.task) }
        if let id = scan.id, let task, (task.policy ?? policy).refusal(for: source) == nil {
            guard let respond = task.respond else {
                return .deferredCall(
                    id: id, taskName: scan.task, PreparedCall(task: task, input: .text(body, options: scan.options)))
            }
            return .synchronousCall(
                SynchronousCall(id: id, taskName: scan.task, task: task, respond: respond, options: scan.options))
        }
        return preparedCall(scan, in: text, task: task, from: source)
    }

    /// The longest id a call may have, in bytes of UTF-8: 256 (docs/protocol.md, "call"). The
    /// shim's ids have about ten; the longest other bridges write (64-bit numbers, callback names)
    /// a few dozen.
    static let maxIDBytes = 256

    /// Whether `id` is absent or at most ``maxIDBytes`` long.
    @inline(__always)
    static func isUsable(_ id: String?) -> Bool {
        guard let id else { return true }
        return id.utf8.count <= maxIDBytes
    }

    /// The refusal of a call whose id is longer than ``maxIDBytes``.
    static var idTooLong: BridgeError {
        .invalidMessage("The id is longer than \(maxIDBytes) bytes of UTF-8.")
    }

    /// From this size on (64 KiB), a body from a sender no policy admits is refused before it is
    /// read (``earlyRefusal(of:from:state:)``).
    static let earlyRefusalBytes = 64 * 1024

    /// The refusal of a large body from a sender that neither the router's policy nor any task's
    /// own policy admits (an origin not listed, a subframe, no origin), before the body is scanned:
    /// reading 15 MiB of a page the app does not serve to find out it may not call took the main
    /// actor long enough to hold up every other web view (attack 18). A call the shim wrote is
    /// answered `forbidden` under its id (read from the start of the body); anything else
    /// under none. `nil` when some policy admits the sender.
    @inline(never)
    private func earlyRefusal(
        of text: UnsafeBufferPointer<UInt8>, from source: MessageSource, state: Locked<RouterState>
    ) -> InboundAdmission? {
        guard let reason = senderRefusal(source, state: state) else { return nil }
        return .unreadable(
            id: CallEnvelopeScan.shimCallID(in: text),
            .forbidden(reason: reason, origin: source.origin?.description))
    }

    /// Why neither the router's policy nor any task's own policy admits `source` (the router's
    /// policy's reason), or `nil` when one does (``BridgeRouter/admitsSender(_:)``).
    func senderRefusal(_ source: MessageSource, state: Locked<RouterState>) -> String? {
        guard let reason = policy.refusal(for: source),
            !state.withLock({ $0.taskTable.hasOwnPolicy(admitting: source) })
        else { return nil }
        return reason
    }

    /// A scanned call that is neither deferred nor synchronous (no id, refused by the policy, no
    /// such task): prepared now, its options decoded when it may run. Not inlined (rare).
    @inline(never)
    private func preparedCall(
        _ scan: CallEnvelopeScan, in text: UnsafeBufferPointer<UInt8>, task: AnyBridgeTask?,
        from source: MessageSource
    ) -> InboundAdmission {
        do {
            return .message(
                try InboundEnvelope.prepareCall(
                    id: scan.id, name: scan.task, task: task, source: source, policy: policy
                ) { task in
                    try InboundEnvelope.decodeOptions(scan.options, in: text, for: task)
                })
        } catch {
            return Self.optionsRefusal(error, id: scan.id, taskName: scan.task)
        }
    }

    /// The general path: every message that is not a plain call envelope. Not inlined
    /// (docs/performance.md, "generalAdmission").
    @inline(never)
    private func generalAdmission(
        of text: UnsafeBufferPointer<UInt8>, from source: MessageSource, state: Locked<RouterState>
    ) -> InboundAdmission {
        let scan = BodyScan(text)
        if text.count > limits.maxPayloadBytes {
            return .unreadable(id: scan.id, .payloadTooLarge(bytes: text.count, limit: limits.maxPayloadBytes))
        }
        if scan.depth > limits.maxDepth {
            return .unreadable(id: scan.id, .nestingTooDeep(limit: limits.maxDepth))
        }
        let (tasks, isClosed) = state.withLock { ($0.taskTable.tasks, $0.isClosed) }
        guard let message = try? InboundEnvelope.decodeWhole(text, tasks: tasks, source: source, policy: policy)
        else {
            return .unreadable(id: scan.id, .invalidMessage("The body is not valid JSON."))
        }
        // Only calls are answered `unavailable`: a cancel or a reply after close names a call that
        // has already settled, and must not get a second final reply.
        if case .call(let call) = message, isClosed { return .closed(id: call.id, taskName: call.taskName) }
        return .message(message)
    }

    /// How a scanned call whose options did not decode (`error`, thrown while decoding them) is
    /// answered: options that are not JSON make the body unreadable (`invalid_message`, as the
    /// general path refuses a body that is not JSON); any other error is the call's
    /// ``InboundEnvelope/optionsError(_:)``.
    static func optionsRefusal(_ error: any Error, id: String?, taskName: String) -> InboundAdmission {
        if error is OptionsNotJSON { return .unreadable(id: id, InboundEnvelope.optionsError(error)) }
        return .message(
            .call(
                InboundCall(
                    id: id, taskName: taskName, prepared: .failure(InboundEnvelope.optionsError(error)), refusal: nil)))
    }
}

/// Thrown when a call's `options` text is not JSON by ``JSONValidator`` (RFC 8259): the page gets
/// `invalid_message`, as for a body that is not JSON (``InboundEnvelope/optionsError(_:)``).
@usableFromInline
struct OptionsNotJSON: Error {
    @usableFromInline
    init() {}
}

/// The common message in one strict pass: a page-to-native call whose envelope is plain.
///
/// Most bodies are `{"v":1,"kind":"call","id":"…","task":"…","options":…}` written by the shim's
/// `JSON.stringify`. For those, decoding the envelope with `JSONDecoder` costs as much as
/// decoding small options, so the router reads the envelope members itself and hands only the
/// `options` bytes to `JSONDecoder` (which validates them). Anything unusual makes the scan give
/// up (`nil`) and the router decodes the whole body the general way, which produces every error
/// exactly as before: escapes in a key or in `kind`/`id`/`task`, `callbackId`, any other member,
/// a duplicate member, `v` other than the token `1`, `kind` other than `"call"`, a control
/// character or invalid UTF-8 in a string, text after the object.
///
/// When it succeeds, ``depth`` and ``id`` equal what ``BodyScan`` reports for the same bytes.
struct CallEnvelopeScan {
    /// The call id, if the body has one.
    let id: String?
    /// The task name (non-empty).
    let task: String
    /// The byte range of the `options` value, or `nil` when the member is absent.
    let options: Range<Int>?
    /// The deepest nesting, counting the envelope object as 1 (as ``BodyScan/depth``).
    let depth: Int

    /// Scans `bytes`; `nil` when the body is not a plain call envelope.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        var reader = Reader(bytes: bytes)
        var seen: UInt8 = 0  // one bit per known member
        if Self.startsWithShimPrefix(bytes) {
            // What the shim always writes first: `v` and `kind` read in one comparison.
            reader.index = Self.shimPrefix.utf8CodeUnitCount
            seen = 1 | 2
        } else {
            guard reader.skipSpace() == UInt8(ascii: "{") else { return nil }
            reader.index += 1
        }
        var id: String?
        var task: String?
        var options: Range<Int>?
        var depth = 1
        while true {
            guard reader.skipSpace() == UInt8(ascii: "\""), let key = reader.plainString() else { return nil }
            guard reader.skipSpace() == UInt8(ascii: ":") else { return nil }
            reader.index += 1
            guard reader.skipSpace() != nil else { return nil }
            let member: UInt8
            switch Self.member(key) {
            case .v:
                member = 1
                guard reader.skipToken() == 1, bytes[reader.index - 1] == UInt8(ascii: "1") else { return nil }
            case .kind:
                member = 2
                guard let value = reader.plainString(), Self.equals(value, "call") else { return nil }
            case .id:
                member = 4
                guard let value = reader.plainString(), let text = Self.string(value) else { return nil }
                id = text
            case .task:
                member = 8
                guard let value = reader.plainString(), !value.isEmpty, let text = Self.string(value) else {
                    return nil
                }
                task = text
            case .options:
                member = 16
                let start = reader.index
                guard let nesting = reader.skipValue() else { return nil }
                options = start..<reader.index
                depth = 1 + nesting
            case nil:
                return nil
            }
            guard seen & member == 0 else { return nil }
            seen |= member
            switch reader.skipSpace() {
            case UInt8(ascii: ","):
                reader.index += 1
            case UInt8(ascii: "}"):
                reader.index += 1
                guard reader.skipSpace() == nil, let task else { return nil }
                self.id = id
                self.task = task
                self.options = options
                self.depth = depth
                return
            default:
                return nil
            }
        }
    }

    private enum Member { case v, kind, id, task, options }

    /// The string of a member's bytes; `nil` when they are not valid UTF-8 (the general path then
    /// reports the body). ASCII, the usual id and task name, skips the generic validation of
    /// `String(validating:as:)` (there is nothing to repair, so `String(decoding:as:)` is exact).
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        return high < 0x80 ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// The start of every call the shim sends (`JSON.stringify` of `{v: 1, kind: "call", …}`).
    ///
    /// The shim's `encodeCall` (js/webbridge.js) must keep writing the keys in the order `v`,
    /// `kind`, `id`, `task`, `options`: a body with this prefix skips two member reads. Another
    /// order is still read correctly, one member at a time. Pinned on both sides: js/test/call.test.js
    /// ("encodeCall key order") and `CallEnvelopeScanTests`.
    static let shimPrefix: StaticString = #"{"v":1,"kind":"call","#

    /// The id of a call the shim wrote (`{"v":1,"kind":"call","id":"…"`), read from the start of
    /// `bytes` without reading the rest; nil for any other body, or an id longer than 256 bytes or
    /// with an escape.
    static func shimCallID(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let idKey: StaticString = #""id":""#
        let start = shimPrefix.utf8CodeUnitCount + idKey.utf8CodeUnitCount
        guard startsWithShimPrefix(bytes), bytes.count > start, let base = bytes.baseAddress,
            memcmp(base + shimPrefix.utf8CodeUnitCount, idKey.utf8Start, idKey.utf8CodeUnitCount) == 0
        else { return nil }
        var end = start
        while end < bytes.count, end - start <= 256 {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\""), end > start else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Whether `bytes` start with ``shimPrefix`` (and go on after it).
    static func startsWithShimPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count > shimPrefix.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base, shimPrefix.utf8Start, shimPrefix.utf8CodeUnitCount) == 0
    }

    private static func member(_ key: UnsafeBufferPointer<UInt8>) -> Member? {
        switch key.count {
        case 1: return key[0] == UInt8(ascii: "v") ? .v : nil
        case 2: return Self.equals(key, "id") ? .id : nil
        case 4: return Self.equals(key, "kind") ? .kind : Self.equals(key, "task") ? .task : nil
        case 7: return Self.equals(key, "options") ? .options : nil
        default: return nil
        }
    }

    /// Whether `bytes` are exactly the UTF-8 bytes of `text`.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
        return memcmp(base, text.utf8Start, bytes.count) == 0
    }

    /// A cursor over the body.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        /// Skips JSON whitespace; returns the next byte, or `nil` at the end.
        mutating func skipSpace() -> UInt8? {
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
                index += 1
            }
            return nil
        }

        /// Reads a string without escapes or control characters at the cursor (which is on its
        /// opening quote) and returns its content bytes; `nil` for anything else.
        mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var end = start
            if let base = bytes.baseAddress {
                end = Self.nextSpecial(base, from: start, count: bytes.count)
            }
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") {
                    index = end + 1
                    return UnsafeBufferPointer(rebasing: bytes[start..<end])
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                end += 1
            }
            return nil
        }

        /// The index of the first `"`, `\\` or control character at or after `index`, or
        /// `count`; eight bytes at a time (the lowest flagged lane of each test is exact, see
        /// `JavaScriptEmbedding`), then byte by byte.
        @inline(__always)
        static func nextSpecial(_ base: UnsafePointer<UInt8>, from index: Int, count: Int) -> Int {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            var index = index
            while count - index >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let quotes = word ^ (ones &* 0x22)
                let backslashes = word ^ (ones &* 0x5C)
                var found = (quotes &- ones) & ~quotes
                found |= (backslashes &- ones) & ~backslashes
                found |= (word &- ones &* 0x20) & ~word  // bytes below 0x20
                found &= highs
                if found != 0 { return index + found.trailingZeroBitCount / 8 }
                index += 8
            }
            while index < count, base[index] != 0x22, base[index] != 0x5C, base[index] >= 0x20 {
                index += 1
            }
            return index
        }

        /// Skips a scalar token (number, `true`, `false`, `null`); returns its length.
        mutating func skipToken() -> Int {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                    || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
                {
                    break
                }
                index += 1
            }
            return index - start
        }

        /// Skips one value without validating strings, arrays and objects (the options are
        /// validated where they are decoded): strings with their escapes, and arrays and objects
        /// by counting brackets outside strings, as ``BodyScan`` counts them; a number or literal
        /// must be one (issue 20, item 10: the scan must see the envelope's members where
        /// ``BodyScan`` does).
        /// - Returns: the deepest bracket nesting inside the value, or `nil` when it does not end.
        mutating func skipValue() -> Int? {
            guard index < bytes.count else { return nil }
            let first = bytes[index]
            if first == UInt8(ascii: "\"") {
                return skipString() ? 0 : nil
            }
            guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
                // A number or literal, checked now (it is short): anything else here (a stray
                // byte, a `{` inside a "token") would make the scan read the envelope where
                // ``BodyScan`` does not, and answer a body under an id BodyScan never names.
                let start = index
                guard skipToken() > 0, let base = bytes.baseAddress,
                    JSONValidator.isValid(UnsafeBufferPointer(start: base + start, count: index - start), maxDepth: 0)
                else { return nil }
                return 0
            }
            var level = 0
            var deepest = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    guard skipString() else { return nil }
                    continue
                }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    level += 1
                    deepest = max(deepest, level)
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    level -= 1
                    if level == 0 {
                        index += 1
                        return deepest
                    }
                }
                index += 1
            }
            return nil
        }

        /// Skips a string at the cursor, escapes included; `false` when it does not end.
        /// Finds each candidate closing quote with `memchr` and checks it is not escaped.
        mutating func skipString() -> Bool {
            guard let base = bytes.baseAddress else { return false }
            var from = index + 1
            while from < bytes.count {
                guard let found = memchr(base + from, Int32(UInt8(ascii: "\"")), bytes.count - from) else {
                    return false
                }
                let quote = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
                // The quote is escaped when an odd number of backslashes precede it.
                var backslashes = 0
                while quote - backslashes - 1 > index, base[quote - backslashes - 1] == UInt8(ascii: "\\") {
                    backslashes += 1
                }
                if backslashes % 2 == 0 {
                    index = quote + 1
                    return true
                }
                from = quote + 1
            }
            return false
        }
    }
}

extension InboundEnvelope {
    /// Decodes the `options` member at `range` of `body` (absent: JSON `null`, as
    /// `superDecoder(forKey:)` reads it) into `task`'s `Options` type; a ``RawJSON`` task gets the
    /// bytes once ``JSONValidator`` accepted them (the scan has already checked their depth).
    /// - Throws: ``OptionsNotJSON`` when the text is not JSON, else what the task's `Options` type
    ///   throws; ``optionsError(_:)`` says which error the page gets.
    static func decodeOptions(
        _ range: Range<Int>?, in body: UnsafeBufferPointer<UInt8>,
        for task: AnyBridgeTask
    ) throws -> any Sendable {
        guard let range, let base = body.baseAddress, !range.isEmpty else {
            return task.takesRawJSON ? RawJSON.null : try task.decodeOptionsText(Self.null)
        }
        if task.takesRawJSON {
            let bytes = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
            guard JSONValidator.isValid(bytes, maxDepth: .max) else { throw OptionsNotJSON() }
            return RawJSON(checked: Data(bytes))
        }
        // Checked first: `JSONDecoder` only looks inside the strings a type reads, so it would take
        // options whose other strings hold control characters or invalid UTF-8 (issue 20, item 10).
        let bytes = UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
        guard JSONValidator.isValid(bytes, maxDepth: .max) else { throw OptionsNotJSON() }
        // No copy: the decoder reads the body's own bytes while this call runs.
        let options = Data(
            bytesNoCopy: UnsafeMutableRawPointer(mutating: base + range.lowerBound),
            count: range.count, deallocator: .none)
        return try task.decodeOptionsText(options)
    }

    /// The error the page gets for a call's options that do not decode, wherever they were
    /// decoded (on arrival, by the general path or the fast scan; by the call's work; by a
    /// synchronous task's step): the one rule.
    ///
    /// - Text that is not JSON (``OptionsNotJSON``): `invalid_message`, as a body that is not JSON.
    /// - A `DecodingError`: `invalid_options` with its path inside the options
    ///   (``DecodingErrorDescription``; the same whether the options were decoded alone or as the
    ///   envelope's `options` member).
    /// - Anything else the task's own `Options` type throws: `invalid_options`, whose text reaches
    ///   the page only when it is meant for the page (``PageFacingError``); otherwise only the log
    ///   gets it.
    static func optionsError(_ error: any Error) -> BridgeError {
        if error is OptionsNotJSON { return .invalidMessage("The body is not valid JSON.") }
        if let error = error as? DecodingError {
            let failure = DecodingErrorDescription(error)
            return .invalidOptions(failure.message, path: failure.path)
        }
        var failure = BridgeError.invalidOptions("The options could not be decoded.", path: "")
        if let facing = error as? any PageFacingError {
            failure.message = facing.pageErrorMessage
        } else {
            failure.internalDescription = String(reflecting: error)
        }
        return failure
    }

    /// Decodes a whole body the general way: the envelope with `JSONDecoder`, a call's options
    /// into the type of the task `tasks` has under its name (``InboundDecodingContext``).
    ///
    /// The body must first be one JSON text by ``JSONValidator`` (RFC 8259, valid UTF-8), the one
    /// definition of a body every path shares: `JSONDecoder` alone is lazier (it never looks
    /// inside a string nobody reads, such as a `callbackId` next to an `id`, so a control
    /// character or invalid UTF-8 there passed) and more forgiving (a trailing comma).
    /// - Throws: when the body is not JSON.
    static func decodeWhole(
        _ body: UnsafeBufferPointer<UInt8>, tasks: [String: AnyBridgeTask], source: MessageSource,
        policy: AccessPolicy
    ) throws -> InboundMessage {
        guard JSONValidator.isValid(body, maxDepth: .max) else { throw NotJSON() }
        let decoder = BridgeJSON.makeDecoder()
        if let key = InboundDecodingContext.key {
            decoder.userInfo[key] = InboundDecodingContext(tasks: tasks, source: source, policy: policy)
        }
        return try decoder.decode(InboundEnvelope.self, from: Data(body)).message
    }

    private static let null = Data("null".utf8)

    /// A body that is not one JSON text (``decodeWhole(_:tasks:source:policy:)``).
    private struct NotJSON: Error {}
}

/// What the router needs to decode a message in one pass: the registered tasks (to decode a
/// call's options straight into the task's `Options` type while the envelope is decoded), the
/// sender and the router's policy (to refuse before decoding options at all).
struct InboundDecodingContext: Sendable {
    let tasks: [String: AnyBridgeTask]
    let source: MessageSource
    let policy: AccessPolicy

    /// The `userInfo` key; `CodingUserInfoKey(rawValue:)` is failable, though it accepts any text.
    static let key = CodingUserInfoKey(rawValue: "BridgeKit.InboundDecodingContext")
}

/// A call from the page, prepared for running, or the reason it cannot run.
struct InboundCall: Sendable {
    let id: String?
    let taskName: String
    /// The task and where its options come from, or the error to settle the call with.
    let prepared: Result<PreparedCall, BridgeError>
    /// The refusal reason when the policy refused the call (`"subframe"`, …), for the log.
    let refusal: String?
}

/// One decoded page-to-native message (protocol v1, see docs/protocol.md).
enum InboundMessage: Sendable {
    case call(InboundCall)
    /// The page gave up on call `id`; `timedOut` when its reason was the page's time limit
    /// (`"reason": "timeout"`).
    case cancel(id: String, timedOut: Bool)
    case reply(id: String, result: Result<JSONValue, BridgeError>)
    /// A relay asks to be answered once native has read its frame's earlier messages (they are
    /// read in order; docs/protocol.md, "Relay: flow control"). Answered with nothing, at once.
    case sync
    /// Not a usable message; `id` is set when the body named one, so the call can be answered.
    case invalid(id: String?, error: BridgeError)
}

/// The envelope, decoded with ``InboundDecodingContext`` in the decoder's `userInfo`.
struct InboundEnvelope: Decodable {
    let message: InboundMessage

    private enum Key: String, CodingKey {
        case v, kind, id, callbackId, task, options, ok, data, error, reason
    }

    init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<Key>
        do {
            container = try decoder.container(keyedBy: Key.self)
        } catch {
            message = .invalid(id: nil, error: .invalidMessage("The message is not a JSON object."))
            return
        }
        let id: String?
        do {
            id = try Self.decodeID(container)
        } catch {
            message = .invalid(id: nil, error: .invalidMessage("The member \"id\" must be a string."))
            return
        }
        if let problem = Self.versionProblem(container) {
            message = .invalid(id: id, error: problem)
            return
        }
        let kind =
            (try? container.decodeIfPresent(String.self, forKey: .kind))
            ?? (container.contains(.task) ? "call" : nil)
        switch kind {
        case "call":
            message = Self.decodeCall(container, id: id, decoder: decoder)
        case "cancel":
            if let id {
                // Any other reason, or one that is not a string, is a plain cancel: a later
                // shim may give more reasons.
                let reason = try? container.decodeIfPresent(String.self, forKey: .reason)
                message = .cancel(id: id, timedOut: reason == "timeout")
            } else {
                message = .invalid(id: nil, error: .invalidMessage("A cancel needs an id."))
            }
        case "reply":
            message = Self.decodeReply(container, id: id)
        case "sync":
            message = .sync
        default:
            let quoted = kind.map(BridgeError.excerpt)
            message = .invalid(
                id: id,
                error: .invalidMessage(
                    "Unknown message kind \(quoted.map { "\"\($0)\"" } ?? "(none)").",
                    details: ["kind": quoted.map(JSONValue.string) ?? .null]))
        }
    }

    private static func decodeID(_ container: KeyedDecodingContainer<Key>) throws -> String? {
        if let id = try container.decodeIfPresent(String.self, forKey: .id) { return id }
        return try container.decodeIfPresent(String.self, forKey: .callbackId)
    }

    private static func versionProblem(_ container: KeyedDecodingContainer<Key>) -> BridgeError? {
        guard container.contains(.v) else { return nil }
        guard let version = try? container.decode(Int.self, forKey: .v) else {
            return .invalidMessage("The member \"v\" must be an integer.")
        }
        guard version == 1 else {
            return .invalidMessage("Protocol version \(version) is not supported.", details: ["supported": [1]])
        }
        return nil
    }

    private static func decodeCall(_ container: KeyedDecodingContainer<Key>, id: String?, decoder: any Decoder)
        -> InboundMessage
    {
        guard let name = try? container.decode(String.self, forKey: .task), !name.isEmpty else {
            return .invalid(id: id, error: .invalidMessage("A call needs a non-empty string \"task\"."))
        }
        guard let key = InboundDecodingContext.key, let context = decoder.userInfo[key] as? InboundDecodingContext
        else {
            return .invalid(id: id, error: .unavailable("The router is not decoding."))
        }
        do {
            return try prepareCall(
                id: id, name: name, task: context.tasks[name], source: context.source,
                policy: context.policy
            ) { task in
                try task.decodeOptions(container.superDecoder(forKey: .options))
            }
        } catch {
            return .call(InboundCall(id: id, taskName: name, prepared: .failure(optionsError(error)), refusal: nil))
        }
    }

    /// The call `name` prepared for running: refused by the policy (the task's own, else the
    /// router's `policy`) before anything else, `unknown_task` when no task has that name
    /// (`task` is `nil`), otherwise the task with the options `decodeOptions` produced for it.
    /// - Throws: what `decodeOptions` throws; the caller maps it to `invalid_options`.
    static func prepareCall(
        id: String?, name: String, task: AnyBridgeTask?, source: MessageSource, policy: AccessPolicy,
        decodeOptions: (AnyBridgeTask) throws -> any Sendable
    ) throws -> InboundMessage {
        if let reason = (task?.policy ?? policy).refusal(for: source) {
            PolicyHint.noteRefusal(reason: reason, task: name, source: source, policy: task?.policy ?? policy)
            let error = BridgeError.forbidden(reason: reason, origin: source.origin?.description)
            return .call(InboundCall(id: id, taskName: name, prepared: .failure(error), refusal: reason))
        }
        guard let task else {
            return .call(InboundCall(id: id, taskName: name, prepared: .failure(.unknownTask(name)), refusal: nil))
        }
        let options = try decodeOptions(task)
        return .call(
            InboundCall(
                id: id, taskName: name, prepared: .success(PreparedCall(task: task, input: .options(options))),
                refusal: nil))
    }

    private static func decodeReply(_ container: KeyedDecodingContainer<Key>, id: String?) -> InboundMessage {
        guard let id else { return .invalid(id: nil, error: .invalidMessage("A reply needs an id.")) }
        guard let ok = try? container.decode(Bool.self, forKey: .ok) else {
            return .invalid(id: nil, error: .invalidMessage("A reply needs a boolean \"ok\"."))
        }
        if ok {
            // An answer native cannot read (a number out of range, a lone surrogate: JSON.stringify
            // writes one for a string cut inside a character) fails the call; it is never taken as null.
            let data: JSONValue?
            do {
                data = try container.decodeIfPresent(JSONValue.self, forKey: .data)
            } catch {
                let error = BridgeError.invalidResult(
                    "The page's answer is not JSON native can read (a number out of range, or a lone surrogate such as \\ud83d)."
                )
                return .reply(id: id, result: .failure(error))
            }
            return .reply(id: id, result: .success(data ?? .null))
        }
        let error =
            (try? container.decode(BridgeError.self, forKey: .error))
            ?? .taskFailed("The page failed the call without a readable error.")
        return .reply(id: id, result: .failure(error))
    }
}

/// One cheap pass over a body before it is decoded: its nesting depth and the top-level `id`
/// (or `callbackId`), so that a body rejected for its size, depth or syntax can still be
/// answered with an error for the right call.
struct BodyScan {
    /// The deepest nesting seen, counting the top-level object as 1.
    var depth = 0
    /// The string value of the top-level `"id"` member, else of the `"callbackId"` member, if
    /// any: the member the decoder reads (``InboundEnvelope``), whichever comes first.
    var id: String?

    /// Scans `bytes`, which need not be valid JSON.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < bytes.count, bytes[index] <= 0x20 { index += 1 }
        let topIsObject = index < bytes.count && bytes[index] == UInt8(ascii: "{")
        var level = 0
        var lastKeyIsID = false
        var lastKeyIsCallbackID = false
        var idIsFromCallbackID = false
        var expectingKey = false
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                level += 1
                depth = max(depth, level)
                expectingKey = true
                index += 1
            case UInt8(ascii: "["):
                level += 1
                depth = max(depth, level)
                expectingKey = false
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                level -= 1
                index += 1
            case UInt8(ascii: ","):
                expectingKey = level == 1 && topIsObject
                index += 1
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                var escaped = false
                while end < count, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                if level == 1 {
                    if expectingKey {
                        let key = Self.idKey(bytes, start, min(end, count))
                        lastKeyIsID = key == .id
                        lastKeyIsCallbackID = key == .callbackID
                    } else if lastKeyIsID || lastKeyIsCallbackID, end < count,
                        id == nil || (lastKeyIsID && idIsFromCallbackID)
                    {
                        id = Self.string(bytes, start, end, escaped: escaped)
                        idIsFromCallbackID = lastKeyIsCallbackID
                        lastKeyIsID = false
                        lastKeyIsCallbackID = false
                    }
                }
                expectingKey = false
                index = end + 1
            case UInt8(ascii: ":"):
                expectingKey = false
                index += 1
            default:
                if level == 1, !expectingKey, byte > 0x20 {
                    lastKeyIsID = false
                    lastKeyIsCallbackID = false
                }
                index += 1
            }
            if level < 0 { break }
        }
    }

    private enum IDKey { case id, callbackID }

    private static func idKey(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> IDKey? {
        let length = end - start
        if length == 2 { return bytes[start] == UInt8(ascii: "i") && bytes[start + 1] == UInt8(ascii: "d") ? .id : nil }
        if length == 10 {
            let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            return key == "callbackId" ? .callbackID : nil
        }
        return nil
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, escaped: Bool) -> String?
    {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard escaped else { return String(validating: slice, as: UTF8.self) }
        let quoted = Data([UInt8(ascii: "\"")]) + Data(slice) + Data([UInt8(ascii: "\"")])
        return try? JSONDecoder().decode(String.self, from: quoted)
    }
}

/// The body of a message, kept by a call whose options its work decodes (``CallInput/text(_:options:)``):
/// the string or the data the engine delivered, not a copy.
enum CallBody: Sendable {
    /// A posted string, made contiguous UTF-8 before it is kept.
    case string(String)
    /// The JSON text of a posted value.
    case data(Data)

    /// The `Data` holding the bytes, when the body is one (a ``RawJSON`` option of a synchronous
    /// task can then be a view of it instead of a copy).
    var data: Data? {
        if case .data(let data) = self { return data }
        return nil
    }

    /// Calls `body` with the body's UTF-8 bytes, which are only valid during the call.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch self {
        case .string(var string):
            // Contiguous already (see `BridgeRouter.receive`), so this makes no copy.
            return try string.withUTF8(body)
        case .data(let data):
            return try data.withUnsafeBytes { try body($0.bindMemory(to: UInt8.self)) }
        }
    }
}

/// Where an admitted call's options come from.
///
/// A call the fast path admits (``CallEnvelopeScan``) keeps its body and leaves the options to
/// its work, so that a concurrent task's options are decoded on the thread that runs the task,
/// not on the thread that delivered the message (the main thread of an app): a large payload
/// does not hold up the page's other messages, and the decoded values are made, used and freed
/// on one thread. The general path has decoded the options already.
enum CallInput: Sendable {
    /// Options already decoded into the task's `Options` type.
    case options(any Sendable)
    /// The body and the byte range of its `options` member (`nil` when absent: JSON `null`).
    case text(CallBody, options: Range<Int>?)

    /// The options, decoded into `task`'s `Options` type when they are still text (once: a call's
    /// work takes its input once).
    /// - Throws: the ``BridgeError`` of options that do not decode (``InboundEnvelope/optionsError(_:)``).
    func options(for task: AnyBridgeTask) throws -> any Sendable {
        switch self {
        case .options(let options):
            return options
        case .text(let body, let range):
            return try body.withBytes { bytes in
                do {
                    return try InboundEnvelope.decodeOptions(range, in: bytes, for: task)
                } catch {
                    throw InboundEnvelope.optionsError(error)
                }
            }
        }
    }

    /// The error of options still text that do not decode into `task`'s `Options` type, decoded
    /// now (the only decoding they get); `nil` when they decode or were decoded already. For a
    /// call refused at admission (its id in use, too many pending calls) whose work would have
    /// decoded them: the options' error comes first, as for a call decoded on arrival. Not
    /// inlined (rare).
    @inline(never)
    func optionsError(for task: AnyBridgeTask) -> BridgeError? {
        guard case .text = self else { return nil }
        do {
            _ = try options(for: task)
            return nil
        } catch {
            return BridgeError.pageFacing(error)
        }
    }
}

/// An admitted call's task and input, held by its ``PendingCall`` until the call's work takes them.
struct PreparedCall: Sendable {
    let task: AnyBridgeTask
    let input: CallInput
}
