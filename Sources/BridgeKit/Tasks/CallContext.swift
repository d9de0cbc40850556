/// What a running task knows about its call, and how it talks back before the final reply.
///
/// Passed to ``BridgeTask/run(_:context:)``. Sendable; may be copied into child tasks.
public struct CallContext: Sendable {
    /// The call's id as sent by the page, or `nil` for a fire-and-forget call.
    public var callID: String? {
        switch storage {
        case .call(let call): call.id
        case .fields(let fields): fields.callID
        }
    }

    /// The name of the task being run.
    public var taskName: String {
        switch storage {
        case .call(let call): call.taskName
        case .fields(let fields): fields.taskName
        }
    }

    /// The frame and origin that sent the call, as the engine reported them.
    public var source: MessageSource {
        switch storage {
        case .call(let call): call.source
        case .fields(let fields): fields.source
        }
    }

    /// The page generation the call belongs to; it changes on every navigation of the web view.
    public var pageGeneration: UInt64 {
        switch storage {
        case .call(let call): call.generation
        case .fields(let fields): fields.pageGeneration
        }
    }

    /// One reference: the router's pending call, which already holds everything a context
    /// reports (no copies of its strings, and a one-word context in the task's `async` frames),
    /// or the fields of a context made with the public initializer.
    private let storage: Storage

    private enum Storage: Sendable {
        case call(PendingCall)
        case fields(Fields)
    }

    /// What a context made with ``init(callID:taskName:source:pageGeneration:progress:)`` reports.
    private final class Fields: Sendable {
        let callID: String?
        let taskName: String
        let source: MessageSource
        let pageGeneration: UInt64
        let progress: @Sendable (any Encodable & Sendable) async throws -> Void

        init(
            callID: String?, taskName: String, source: MessageSource, pageGeneration: UInt64,
            progress: @escaping @Sendable (any Encodable & Sendable) async throws -> Void
        ) {
            self.callID = callID
            self.taskName = taskName
            self.source = source
            self.pageGeneration = pageGeneration
            self.progress = progress
        }
    }

    /// Creates a context. The router makes one per call; make one yourself to call a task's `run`
    /// directly in unit tests, or, with `callID` `nil`, to hand bytes to the page in an event
    /// (``BinaryTransfers/send(_:type:context:)`` then announces the token itself; see ``BridgeBinary``).
    /// - Parameters:
    ///   - callID: the call's id; `nil` for fire-and-forget.
    ///   - taskName: the task's name.
    ///   - source: the sending frame.
    ///   - pageGeneration: the page generation of the call.
    ///   - progress: receives every value passed to ``progress(_:)-(EncodableSendable)``.
    public init(
        callID: String?,
        taskName: String,
        source: MessageSource,
        pageGeneration: UInt64 = 0,
        progress: @escaping @Sendable (any Encodable & Sendable) async throws -> Void = { _ in }
    ) {
        storage = .fields(
            Fields(
                callID: callID, taskName: taskName, source: source, pageGeneration: pageGeneration,
                progress: progress))
    }

    /// The router's context for `call`: it reports the call's own fields, and its progress goes
    /// to the call's router (``PendingCall/sendProgress(_:)``).
    init(call: PendingCall) {
        storage = .call(call)
    }

    /// The router's call this context runs (``init(call:)``); `nil` for a context made with the
    /// public initializer. For the byte transport's check that the call has not settled.
    var pendingCall: PendingCall? {
        if case .call(let call) = storage { return call }
        return nil
    }

    /// Sends a progress message (not final) to the page's `onProgress` handler.
    ///
    /// Returns after the message was handed to the page (or dropped because the call has no
    /// id), so awaiting each call keeps progress in order and before the final reply.
    /// - Throws: ``BridgeError`` `cancelled` when the call has already settled (cancelled, timed
    ///   out, navigated away), or when the task is cancelled while the value waits for a place in
    ///   the ``BridgeLimits/maxOutboundInFlight`` window (the value is not sent);
    ///   `progress_limit_exceeded` when the call has sent ``BridgeLimits/maxProgressPerCall``
    ///   messages (the call then settles with that error); `invalid_result` when `value` cannot
    ///   be encoded.
    public func progress(_ value: some Encodable & Sendable) async throws {
        try await sendProgress(value)
    }

    /// Sends a progress message whose value is a ``JSONValue``: a literal of mixed types
    /// (`["step": 2, "of": 3, "file": "a.txt"]`), which the generic form cannot infer, is one.
    /// Otherwise the same as the generic `progress(_:)`.
    public func progress(_ value: JSONValue) async throws {
        try await sendProgress(value)
    }

    private func sendProgress(_ value: some Encodable & Sendable) async throws {
        switch storage {
        case .fields(let fields): try await fields.progress(value)
        case .call(let call): try await call.sendProgress(value)
        }
    }

    /// Whether the call has been cancelled (same as `Task.isCancelled` inside `run`).
    public var isCancelled: Bool { Task.isCancelled }
}
