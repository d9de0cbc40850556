public import Foundation

/// A task that answers at once, without suspending: the router decodes the call, runs it and
/// encodes the result before ``BridgeRouter/receive(_:from:replyHandler:)`` returns, on the
/// thread that delivered the message, and hands the reply to the engine there when it goes
/// through the message's reply handler (both shipped adapters); a reply script is evaluated by
/// a Swift task. No timer or pending-call entry is made for such a call.
///
/// Use it for the small, frequent calls of a hybrid screen: read a setting, the app version, a
/// feature flag, a value the app already holds; or pass a payload on (``RawJSON``). Like
/// DSBridge's synchronous APIs, but the page still gets an ordinary asynchronous reply, so the
/// page's code is the same whichever kind of task answers it.
///
/// ```swift
/// struct AppVersion: SynchronousBridgeTask {
///     let name = "AppVersion"
///     func runSynchronously(_ options: NoOptions, context: CallContext) throws -> String {
///         Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String ?? "?"
///     }
/// }
/// ```
///
/// How its calls differ from an asynchronous task's (``BridgeTask/run(_:context:)``):
/// - **Cost.** About a third of the router's own work of a call with a ``TaskExecution/concurrent``
///   task (no task creation, no thread hop, no bookkeeping: docs/performance.md).
/// - **The delivering thread runs it.** That is the UI thread in an app (the main thread for
///   WKWebView, the GTK thread for WebKitGTK): keep the work short, and never block on I/O.
/// - **No time limit, cancel or progress.** The call settles before anything could interrupt
///   it: ``BridgeTask/timeout`` and a page's cancel do not apply, and
///   ``CallContext/progress(_:)-(EncodableSendable)`` throws `cancelled`.
/// - **Exactly once still holds.** A result, a thrown error, an unencodable result
///   (`invalid_result`) or one over ``BridgeLimits/maxPayloadBytes`` (`payload_too_large`)
///   settles the call once; a call after ``BridgeRouter/close()`` gets `unavailable`; a reply is
///   not delivered after the page navigated away. An id that a pending asynchronous call
///   already uses is refused with `invalid_message`, as for any call.
/// - Fire-and-forget calls (no id) still run in arrival order with the other notices.
///
/// The router also starts the call through ``BridgeTask/run(_:context:)`` where it needs a Swift task (a
/// fire-and-forget call); the default implementation calls ``runSynchronously(_:context:)``.
///
/// ## Implementation requirements
/// - `runSynchronously` may be called concurrently from several threads; keep shared state
///   `Sendable` (behind a lock).
/// - Throw a ``BridgeError`` to choose the code the page sees; any other error becomes
///   `task_failed`.
/// - Never wait for the thread that calls it (for example `DispatchQueue.main.sync` on the main
///   thread): that thread is the one running the task.
public protocol SynchronousBridgeTask: BridgeTask {
    /// The options the page sends (see ``BridgeTask/Options``). Restated here so that Swift
    /// infers it from ``runSynchronously(_:context:)``.
    associatedtype Options
    /// The result sent back as the reply's `data` (see ``BridgeTask/Result``).
    associatedtype Result

    /// Runs one call at once, on the thread that delivered its message.
    /// - Parameters:
    ///   - options: the decoded options.
    ///   - context: the call's id and sender; its ``CallContext/progress(_:)-(EncodableSendable)`` throws.
    /// - Returns: the result to send to the page.
    /// - Throws: a ``BridgeError`` to reply with its code; any other error replies `task_failed`.
    func runSynchronously(_ options: Options, context: CallContext) throws -> Result
}

/// What ``SynchronousStep/respond(_:toOptions:admit:write:)`` did.
@usableFromInline
enum SynchronousOutcome {
    /// The options do not decode into the task's type: nothing ran; the router answers with the
    /// error (``OptionsNotJSON`` or what decoding threw), mapped by `InboundEnvelope.optionsError(_:)`.
    case undecodable(any Error)
    /// `admit` refused the call: nothing ran.
    case notAdmitted
    /// The JSON text of the task's result.
    case result(Data)
    /// The task threw, or its result cannot be encoded.
    case failure(BridgeError)
}

extension SynchronousBridgeTask {
    /// Calls ``runSynchronously(_:context:)``.
    public func run(_ options: Options, context: CallContext) async throws -> Result {
        try runSynchronously(options, context: context)
    }

    /// ``TaskExecution/immediate``: where the router needs a Swift task for a call, it starts on
    /// the delivering thread too.
    public var execution: TaskExecution { .immediate }
}

/// The router's one step for a call of a ``SynchronousBridgeTask``: decodes the options, asks
/// `admit` for the call's context, runs ``SynchronousBridgeTask/runSynchronously(_:context:)``
/// and encodes its result. Not public: `@inlinable`, so that registering a task of a known type
/// (``BridgeRouter/register(_:)-(SynchronousBridgeTask)``) compiles it with that type's own
/// `Options` and `Result` (docs/performance.md, "SynchronousStep").
@usableFromInline
enum SynchronousStep {
    /// One call of `task` (see the type).
    /// - Parameters:
    ///   - text: the JSON text of the call's `options` member (`null` when absent). RawJSON
    ///     options keep it (the router hands such a task a `Data` that owns its bytes).
    ///   - admit: returns the call's context, or `nil` when the router refuses the call.
    ///   - write: runs the result's encoding for the call's context and returns its JSON text
    ///     (``SynchronousResponder``); it may throw a ``BridgeError`` (a download over a limit).
    @inlinable
    static func respond<T: SynchronousBridgeTask>(
        _ task: T, toOptions text: Data, admit: () -> CallContext?,
        write: (CallContext, () throws -> Data) throws -> Data
    ) -> SynchronousOutcome {
        let options: T.Options
        if T.Options.self == RawJSON.self {
            let valid = text.withUnsafeBytes { JSONValidator.isValid($0.bindMemory(to: UInt8.self), maxDepth: .max) }
            guard valid, let raw = RawJSON(checked: text) as? T.Options else { return .undecodable(OptionsNotJSON()) }
            options = raw
        } else {
            // The one definition of a body (RFC 8259): `JSONDecoder` does not look inside strings
            // the type never reads.
            let valid = text.withUnsafeBytes { JSONValidator.isValid($0.bindMemory(to: UInt8.self), maxDepth: .max) }
            guard valid else { return .undecodable(OptionsNotJSON()) }
            do {
                options = try BridgeJSON.sharedDecoder.decode(T.Options.self, from: text)
            } catch {
                return .undecodable(error)
            }
        }
        guard let context = admit() else { return .notAdmitted }
        let result: T.Result
        do {
            result = try task.runSynchronously(options, context: context)
        } catch {
            return .failure(BridgeRouter.bridgeError(error))
        }
        if T.Result.self == RawJSON.self, let raw = result as? RawJSON { return .result(raw.data) }
        do {
            return .result(try write(context) { try BridgeJSON.sharedEncoder.encode(result) })
        } catch let error as BridgeError {
            return .failure(error)
        } catch {
            return .failure(.resultNotEncodable(error))
        }
    }
}
