/// A named piece of native work a page can call.
///
/// A task declares its options and result types once; the router decodes the page's JSON
/// options into ``Options`` (a failure names the coding path and settles the call with
/// `invalid_options`), runs ``run(_:context:)``, and encodes the returned ``Result`` as the
/// reply's `data`.
///
/// ```swift
/// struct Greet: BridgeTask {
///     struct Options: Decodable, Sendable { var name: String }
///     let name = "Greet"
///     func run(_ options: Options, context: CallContext) async throws -> String {
///         "Hello, \(options.name)"
///     }
/// }
/// ```
///
/// ## Implementation requirements
/// - `run` may be called concurrently for several calls; keep shared state `Sendable`.
/// - Throw a ``BridgeError``, or an error adopting ``PageFacingError``, to choose the code,
///   message and details the page sees; any other error becomes `task_failed` with the generic
///   message `"The task failed."`, and its description goes only to the traffic log
///   (``TrafficRecord/internalError``).
/// - Check `Task.isCancelled` (or `try Task.checkCancellation()`) in long work: a call is
///   cancelled when the page cancels it, when it times out, and when the page navigates away.
/// - Send progress only through ``CallContext/progress(_:)-(EncodableSendable)`` and await it, so progress arrives
///   in order and before the final reply.
/// - Test it with `InMemoryPage` from `BridgeKitTesting`, which posts calls the way the shim does.
public protocol BridgeTask: Sendable {
    /// The options the page sends. Use ``NoOptions`` for none, an `Optional` when they may be
    /// absent, or ``JSONValue`` for untyped data.
    associatedtype Options: Decodable & Sendable
    /// The result sent back as the reply's `data`. Use ``NoResult`` to reply `null`.
    associatedtype Result: Encodable & Sendable

    /// The name the page calls, for example `"Alert"`. Unique within a router.
    var name: String { get }
    /// Who may call this task; `nil` (the default) uses the router's policy.
    var policy: AccessPolicy? { get }
    /// The time limit for one call; `nil` (the default) uses the router's default.
    var timeout: Duration? { get }
    /// The version the page sees for feature detection (`WebBridge.supports(name, "2")`,
    /// ``BridgeTaskList``), for example `"2.1"`; `nil` (the default) declares none. Bump it when
    /// the task's options or result change in a way a page must know about.
    var version: String? { get }
    /// Where each call starts; ``TaskExecution/concurrent`` (the default) or
    /// ``TaskExecution/immediate`` for short tasks (no thread hop per call).
    var execution: TaskExecution { get }

    /// Runs one call.
    /// - Parameters:
    ///   - options: the decoded options.
    ///   - context: the call's id, sender, progress channel and cancellation.
    /// - Returns: the result to send to the page.
    /// - Throws: a ``BridgeError`` or a ``PageFacingError`` to reply with its code and message; any
    ///   other error replies `task_failed` with a generic message (see ``PageFacingError``).
    func run(_ options: Options, context: CallContext) async throws -> Result
}

extension BridgeTask {
    public var policy: AccessPolicy? { nil }
    public var timeout: Duration? { nil }
    public var version: String? { nil }
    public var execution: TaskExecution { .concurrent }
}

/// Options for a task that takes none. Decodes from any JSON value, including `null` and an
/// absent `options` member, and ignores it.
public struct NoOptions: Decodable, Sendable, Hashable {
    /// Creates the empty value.
    public init() {}
    public init(from decoder: any Decoder) throws {}
}

/// The result of a task that returns nothing. Encodes as JSON `null`, so the page receives
/// `null` (never `undefined` or the string `"null"`, field case R14).
public struct NoResult: Encodable, Sendable, Hashable {
    /// Creates the empty value.
    public init() {}
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}
