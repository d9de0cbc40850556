/// An error whose code, message and details are written for the page, so the router may send
/// them to it.
///
/// When a task throws (or a ``CallbackTask`` hands ``CallResponder/fail(_:)``) an error, the page
/// gets that error's text only when the error says it is meant for the page: a ``BridgeError``,
/// or an error type that adopts this protocol. Any other error — a database driver's, a file
/// system's, a `DecodingError` of data the app read — settles the call with `task_failed` and the
/// generic message `"The task failed."`; its full description (`String(reflecting:)`) goes only to
/// the host's log, as ``TrafficRecord/internalError`` of the reply's record. Error descriptions
/// routinely hold paths, queries, host names and credentials, and a page (any script in it) must
/// not learn them by calling a task that fails.
///
/// Adopt it for errors you write for the page:
///
/// ```swift
/// enum CartError: PageFacingError {
///     case outOfStock(sku: String)
///
///     var pageErrorCode: String { "out_of_stock" }
///     var pageErrorMessage: String { "This item is out of stock." }
///     var pageErrorDetails: JSONValue? {
///         switch self { case .outOfStock(let sku): ["sku": .string(sku)] }
///     }
/// }
/// ```
///
/// Everything the three members return is sent to the page as it is: write them for a reader
/// who may be hostile. Keep internal state out of them and put it in the error's own
/// description instead, which only the log sees.
public protocol PageFacingError: Error {
    /// The stable code the page receives (`error.code`), for example `"out_of_stock"`. The default
    /// is `"task_failed"`; an empty code is sent as `"task_failed"` too.
    var pageErrorCode: String { get }
    /// The human-readable message the page receives (`error.message`).
    var pageErrorMessage: String { get }
    /// Structured data the page receives (`error.details`); the default is none.
    var pageErrorDetails: JSONValue? { get }
}

extension PageFacingError {
    /// `"task_failed"`.
    public var pageErrorCode: String { "task_failed" }
    /// No details.
    public var pageErrorDetails: JSONValue? { nil }
}
