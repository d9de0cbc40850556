/// The error every failed call settles with, on both sides of the bridge.
///
/// The wire form is `{"code": "...", "message": "...", "details": ...}`. ``code`` is stable: it
/// is part of protocol v1 and pages may switch on it. ``message`` is for people and may change.
/// Like `HTTPClientError` in async-http-client, the set of codes is a private enum wrapped in a
/// public struct, so new codes can be added without breaking exhaustive switches.
public struct BridgeError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    private enum Code: String, CaseIterable {
        case unknownTask = "unknown_task"
        case invalidMessage = "invalid_message"
        case invalidOptions = "invalid_options"
        case invalidResult = "invalid_result"
        case taskFailed = "task_failed"
        case cancelled
        case timeout
        case forbidden
        case payloadTooLarge = "payload_too_large"
        case nestingTooDeep = "nesting_too_deep"
        case tooManyPendingCalls = "too_many_pending_calls"
        case progressLimitExceeded = "progress_limit_exceeded"
        case memoryBudgetExceeded = "memory_budget_exceeded"
        case navigated
        case unavailable
    }

    /// The stable error code, for example `"unknown_task"`. Codes a task defines itself (see
    /// ``init(code:message:details:)``) are carried unchanged.
    public let code: String
    /// A human-readable explanation. Not stable; do not match on it.
    public var message: String
    /// Optional structured data: the coding path of a decode error, the limit that was hit, …
    public var details: JSONValue?
    /// The full description of an error that the page gets only a generic message for (a task's
    /// error that is not a ``PageFacingError``): for the host's log (``TrafficRecord/internalError``),
    /// never encoded, and not part of equality.
    var internalDescription: String?

    private enum CodingKeys: String, CodingKey {
        case code, message, details
    }

    /// Creates an error with any code, for tasks that report their own failures
    /// (for example `"not_logged_in"`). Prefer the static constructors for BridgeKit's codes.
    public init(code: String, message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    private init(_ code: Code, _ message: String, _ details: JSONValue? = nil) {
        self.init(code: code.rawValue, message: message, details: details)
    }

    /// Every code BridgeKit itself produces, as sent on the wire.
    public static var builtInCodes: [String] { Code.allCases.map(\.rawValue) }

    /// The most bytes of UTF-8 of one text the page sent that an error BridgeKit writes repeats:
    /// 256. Every refusal goes back to the page, so repeating a page's text whole made the app
    /// write and send back as much as it sent (a 1 MiB task name came back twice; attack 18 found
    /// the same for ids, which are limited instead: docs/protocol.md, "call").
    static let maxQuotedBytes = 256

    /// `text`, which the page sent, as an error repeats it: whole when it has at most
    /// ``maxQuotedBytes`` bytes of UTF-8, else its first Unicode scalars that fit in that many
    /// bytes with "…" (U+2026) after them. Reads at most that much of `text`.
    static func excerpt(_ text: String) -> String {
        guard text.utf8.count > maxQuotedBytes else { return text }
        let room = maxQuotedBytes - "…".utf8.count
        var head = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            let size = UTF8.width(scalar)
            guard used + size <= room else { break }
            used += size
            head.append(scalar)
        }
        return String(head) + "…"
    }

    /// No task is registered under the name the page called. A name of more than 256 bytes is
    /// repeated only in part (its first 253 bytes or fewer, then "…").
    public static func unknownTask(_ name: String) -> BridgeError {
        let quoted = excerpt(name)
        return BridgeError(.unknownTask, "No task named \"\(quoted)\"", ["task": .string(quoted)])
    }
    /// The body is not a protocol message (not JSON, not an object, a wrong field type, an
    /// unsupported protocol version).
    public static func invalidMessage(_ message: String, details: JSONValue? = nil) -> BridgeError {
        BridgeError(.invalidMessage, message, details)
    }
    /// The options did not decode into the task's `Options` type. `path` is the coding path of
    /// the failure, for example `"buttons[1].title"`.
    public static func invalidOptions(_ message: String, path: String) -> BridgeError {
        BridgeError(.invalidOptions, message, ["path": .string(path)])
    }
    /// The task's result could not be encoded as JSON (for example it holds `Double.nan`).
    public static func invalidResult(_ message: String) -> BridgeError {
        BridgeError(.invalidResult, message)
    }
    /// `invalid_result` for a value whose encoding threw `error` (which may come from a type's
    /// own `encode(to:)`): a generic message for the page, the error's description for the log.
    @usableFromInline
    static func resultNotEncodable(_ error: any Error, what: String = "The result") -> BridgeError {
        var result = BridgeError(.invalidResult, "\(what) could not be encoded as JSON.")
        result.internalDescription = String(reflecting: error)
        return result
    }
    /// The task threw an error that is not a ``BridgeError``.
    public static func taskFailed(_ message: String, details: JSONValue? = nil) -> BridgeError {
        BridgeError(.taskFailed, message, details)
    }
    /// The caller cancelled the call (page `cancel` message, an `AbortSignal`, or native code).
    public static func cancelled(_ message: String = "The call was cancelled.") -> BridgeError {
        BridgeError(.cancelled, message)
    }
    /// The call did not settle within its time limit (`seconds`).
    public static func timeout(seconds: Double) -> BridgeError {
        BridgeError(.timeout, "The call did not finish within \(seconds) s.", ["seconds": .double(seconds)])
    }
    /// `timeout` for a call whose time limit in the page passed (a `cancel` with `"reason":
    /// "timeout"`; docs/protocol.md, "cancel").
    static func pageTimeLimitPassed() -> BridgeError {
        BridgeError(.timeout, "The call's time limit in the page passed.")
    }
    /// The origin or frame policy refused the call. `reason` is `"subframe"`,
    /// `"origin_not_allowed"` or `"no_origin"`.
    public static func forbidden(reason: String, origin: String?) -> BridgeError {
        var details: [String: JSONValue] = ["reason": .string(reason)]
        if let origin { details["origin"] = .string(origin) }
        return BridgeError(.forbidden, "The bridge refused this call (\(reason)).", .object(details))
    }
    /// A body or a reply is larger than the configured limit (`limit` bytes).
    public static func payloadTooLarge(bytes: Int, limit: Int) -> BridgeError {
        BridgeError(
            .payloadTooLarge, "The payload has \(bytes) bytes; the limit is \(limit).",
            ["bytes": .int(Int64(bytes)), "limit": .int(Int64(limit))])
    }
    /// A body nests arrays and objects deeper than the configured limit.
    public static func nestingTooDeep(limit: Int) -> BridgeError {
        BridgeError(.nestingTooDeep, "The message nests deeper than \(limit) levels.", ["limit": .int(Int64(limit))])
    }
    /// The page already has `limit` calls in flight.
    public static func tooManyPendingCalls(limit: Int) -> BridgeError {
        BridgeError(
            .tooManyPendingCalls, "The page already has \(limit) calls in flight.", ["limit": .int(Int64(limit))])
    }
    /// Admitting a call of `bytes` bytes would make the router hold more than its budget
    /// (``BridgeLimits/maxHeldBytes``) for the page: its pending calls' bodies and options, queued
    /// fire-and-forget calls and replies waiting for the engine.
    public static func memoryBudgetExceeded(bytes: Int, limit: Int) -> BridgeError {
        BridgeError(
            .memoryBudgetExceeded,
            "The router holds too much for this page to take \(bytes) more bytes; its budget is \(limit) bytes.",
            ["bytes": .int(Int64(bytes)), "limit": .int(Int64(limit))])
    }
    /// A task offered one more download while the transfers already hold `offers` that the page
    /// has not read (``BinaryLimits/maxOffers``).
    static func offerBudgetExceeded(offers: Int, limit: Int) -> BridgeError {
        BridgeError(
            .memoryBudgetExceeded,
            "The app holds \(offers) binary values the page has not read; its budget is \(limit).",
            ["offers": .int(Int64(offers)), "limit": .int(Int64(limit))])
    }
    /// A task sent more progress messages than the configured limit for one call.
    public static func progressLimitExceeded(limit: Int) -> BridgeError {
        BridgeError(
            .progressLimitExceeded, "The task sent more than \(limit) progress messages.", ["limit": .int(Int64(limit))]
        )
    }
    /// The page navigated away while the call was pending; the reply was not delivered.
    public static func navigated() -> BridgeError {
        BridgeError(.navigated, "The page changed while the call was pending.")
    }
    /// The other side is gone: the router was released or detached, or the page has no channel.
    public static func unavailable(_ message: String = "The bridge is not available.") -> BridgeError {
        BridgeError(.unavailable, message)
    }

    public var description: String { "\(code): \(message)" }

    /// Equal when code, message and details are (the internal description is only for the log).
    public static func == (lhs: BridgeError, rhs: BridgeError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.details == rhs.details
    }

    /// Hashes code, message and details.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(details)
    }

    /// The error the page gets for `error`, which task code threw (or handed to a responder, or
    /// raised while encoding its result): a ``BridgeError`` as it is; a `CancellationError` as
    /// `cancelled`; a ``PageFacingError`` with its code, message and details; anything else as
    /// `code` with `genericMessage`, keeping the error's full description only for the log
    /// (issue 20, item 8: a task's internal error text must not reach the page). An error whose
    /// code is empty or `"ok"` (the outcome the traffic log gives every successful reply, so a
    /// failure with it would read as a success there) is `task_failed`, its code in the log.
    static func pageFacing(
        _ error: any Error, code: String = "task_failed",
        genericMessage: String = "The task failed."
    ) -> BridgeError {
        if let bridgeError = error as? BridgeError {
            guard isReserved(bridgeError.code) else { return bridgeError }
            var replaced = BridgeError(
                code: Code.taskFailed.rawValue, message: bridgeError.message, details: bridgeError.details)
            replaced.internalDescription = "A task error with the reserved code \"\(bridgeError.code)\"."
            return replaced
        }
        if error is CancellationError { return .cancelled() }
        if let facing = error as? any PageFacingError {
            let facingCode = facing.pageErrorCode
            var replaced = BridgeError(
                code: isReserved(facingCode) ? Code.taskFailed.rawValue : facingCode,
                message: facing.pageErrorMessage, details: facing.pageErrorDetails)
            if isReserved(facingCode) && !facingCode.isEmpty {
                replaced.internalDescription = "A task error with the reserved code \"\(facingCode)\"."
            }
            return replaced
        }
        var concealed = BridgeError(code: code, message: genericMessage)
        concealed.internalDescription = String(reflecting: error)
        return concealed
    }
}

extension BridgeError {
    /// Whether a task's error code cannot reach the page as it is: empty, or `"ok"`.
    static func isReserved(_ code: String) -> Bool {
        code.isEmpty || code == "ok"
    }
}

extension BridgeError: PageFacingError {
    /// ``code``: a `BridgeError` is meant for the page.
    public var pageErrorCode: String { code }
    /// ``message``.
    public var pageErrorMessage: String { message }
    /// ``details``.
    public var pageErrorDetails: JSONValue? { details }
}
