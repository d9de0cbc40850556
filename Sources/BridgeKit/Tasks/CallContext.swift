/// What a running task knows about its call, and how it talks back before the final reply.
///
/// Passed to ``BridgeTask/run(_:context:)``. Sendable; may be copied into child tasks.
public struct CallContext: Sendable {
    /// The call's id as sent by the page, or `nil` for a fire-and-forget call.
    public let callID: String?
    /// The name of the task being run.
    public let taskName: String
    /// The frame and origin that sent the call, as the engine reported them.
    public let source: MessageSource
    /// The page generation the call belongs to; it changes on every navigation of the web view.
    public let pageGeneration: UInt64

    /// Where ``progress(_:)`` sends its values.
    private let progressTarget: ProgressTarget

    /// A progress function, or a router's pending call: the router's context refers to the call
    /// it already has instead of a closure made for every call.
    enum ProgressTarget: Sendable {
        case function(@Sendable (any Encodable & Sendable) async throws -> Void)
        case call(PendingCall)
    }

    /// Creates a context. Hosts never need this; the router makes one per call. Task authors
    /// can use it to call `run` directly in unit tests.
    /// - Parameters:
    ///   - callID: the call's id; `nil` for fire-and-forget.
    ///   - taskName: the task's name.
    ///   - source: the sending frame.
    ///   - pageGeneration: the page generation of the call.
    ///   - progress: receives every value passed to ``progress(_:)``.
    public init(
        callID: String?,
        taskName: String,
        source: MessageSource,
        pageGeneration: UInt64 = 0,
        progress: @escaping @Sendable (any Encodable & Sendable) async throws -> Void = { _ in }
    ) {
        self.callID = callID
        self.taskName = taskName
        self.source = source
        self.pageGeneration = pageGeneration
        self.progressTarget = .function(progress)
    }

    /// The router's context for `call`: its progress goes to the call's router
    /// (``PendingCall/sendProgress(_:)``).
    init(call: PendingCall) {
        self.callID = call.id
        self.taskName = call.taskName
        self.source = call.source
        self.pageGeneration = call.generation
        self.progressTarget = .call(call)
    }

    /// Sends a progress message (not final) to the page's `onProgress` handler.
    ///
    /// Returns after the message was handed to the page (or dropped because the call has no
    /// id), so awaiting each call keeps progress in order and before the final reply.
    /// - Throws: ``BridgeError`` `cancelled` when the call has already settled (cancelled, timed
    ///   out, navigated away); `progress_limit_exceeded` when the call has sent
    ///   ``BridgeLimits/maxProgressPerCall`` messages (the call then settles with that error);
    ///   `invalid_result` when `value` cannot be encoded.
    public func progress(_ value: some Encodable & Sendable) async throws {
        switch progressTarget {
        case .function(let send): try await send(value)
        case .call(let call): try await call.sendProgress(value)
        }
    }

    /// Whether the call has been cancelled (same as `Task.isCancelled` inside `run`).
    public var isCancelled: Bool { Task.isCancelled }
}
