import Foundation

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

    /// The options, decoded into `task`'s `Options` type when they are still text.
    ///
    /// - Parameters:
    ///   - task: the task the call runs.
    ///   - source: the sending frame, and `policy` the router's policy: only evaluated to report
    ///     an error the way the general path does.
    /// - Throws: when the options do not decode: the ``BridgeError`` the general path reports for
    ///   this body (``InboundEnvelope/generalOptions(of:task:source:policy:)``, which decodes
    ///   them the general way when the fast way fails): `invalid_options` with its path, or
    ///   `invalid_message` for text that is not JSON.
    func options(for task: AnyBridgeTask, source: MessageSource, policy: @autoclosure () -> AccessPolicy) throws
        -> any Sendable
    {
        switch self {
        case .options(let options):
            return options
        case .text(let body, let range):
            return try body.withBytes { bytes in
                do {
                    return try InboundEnvelope.decodeOptions(range, in: bytes, for: task)
                } catch {
                    return try InboundEnvelope.generalOptions(of: bytes, task: task, source: source, policy: policy())
                }
            }
        }
    }
}

/// An admitted call's task and input, held by its ``PendingCall`` until the call's work takes them.
struct PreparedCall: Sendable {
    let task: AnyBridgeTask
    let input: CallInput
}
