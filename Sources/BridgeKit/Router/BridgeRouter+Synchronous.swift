import Foundation

extension BridgeRouter {
    /// A progress function for calls that cannot send progress (``SynchronousBridgeTask``).
    /// Static, so a call's context allocates nothing for it.
    static let noProgress: @Sendable (any Encodable & Sendable) async throws -> Void = { _ in
        throw BridgeError.cancelled("A synchronous task cannot send progress: its call settles when it returns.")
    }

    /// Runs a plain call of a ``SynchronousBridgeTask`` at once, on the calling thread, and
    /// writes its final reply before returning (see ``SynchronousBridgeTask`` for what differs
    /// from an asynchronous call). The caller has checked the access policy.
    ///
    /// No pending-call entry is made: the call settles here, exactly once, so no cancel,
    /// timeout, navigation or ``close()`` can reach it; its reply goes through the channel that
    /// was connected when it was admitted, so a ``close()`` while the task runs does not lose it.
    /// The admission still refuses a call after ``close()`` (`unavailable`) and an id a pending
    /// call uses (`invalid_message`), under the lock `close()` takes. The reply takes the same
    /// route as an asynchronous call's final reply (``writeFinalReply(json:id:task:route:generation:channel:)``):
    /// the reply handler when it carries final replies (answered before this returns), the call
    /// is from a subframe or no channel is connected; otherwise a script, sent from a new Swift task.
    ///
    /// - Parameters:
    ///   - text: the body; `owner`, when given, is the `Data` holding it (see `handle`).
    /// - Returns: `false` when the options do not decode into the task's type: nothing ran and
    ///   nothing was answered, and the caller takes the general path, which reports the error.
    func respondSynchronously(
        _ respond: SynchronousResponder, task: AnyBridgeTask, scan: CallEnvelopeScan, id: String,
        in text: UnsafeBufferPointer<UInt8>, owner: Data?, source: MessageSource,
        replyHandler: ReplyHandler?
    ) -> Bool {
        let options: Data
        if let range = scan.options, let base = text.baseAddress, !range.isEmpty {
            let start = UnsafeMutableRawPointer(mutating: base + range.lowerBound)
            if !task.takesRawJSON {
                // No copy: a decoder only reads the body's own bytes while this call runs.
                options = Data(bytesNoCopy: start, count: range.count, deallocator: .none)
            } else if let owner {
                // RawJSON keeps its options: a view of the body's storage, which the view keeps alive.
                options = Data(bytesNoCopy: start, count: range.count, deallocator: .custom { _, _ in _ = owner })
            } else {
                options = Data(UnsafeRawBufferPointer(start: start, count: range.count))
            }
        } else {
            options = Self.nullOptions
        }
        var refusal: BridgeError?
        var generation: UInt64 = 0
        // The channel connected when the call was admitted: the reply goes to the page that asked,
        // even if close() drops the channel while the task runs.
        var channel: PageChannel?
        var observer: (@Sendable (TrafficRecord) -> Void)?
        let taskName = scan.task
        let bytes = text.count
        let outcome = respond(options) {
            refusal = state.withLock { state in
                if state.isClosed { return .unavailable("The router was closed.") }
                if state.calls[id] != nil { return .invalidMessage("The id \"\(id)\" is already in use.") }
                generation = state.generation
                channel = state.channel
                observer = state.observer
                return nil
            }
            guard refusal == nil else { return nil }
            observer?(
                TrafficRecord(
                    direction: .inbound, kind: TrafficKind.call.rawValue, id: id, task: taskName, outcome: nil,
                    reason: nil,
                    bytes: bytes))
            return CallContext(
                callID: id, taskName: taskName, source: source, pageGeneration: generation,
                progress: Self.noProgress)
        }
        let result: Result<Data, BridgeError>
        switch outcome {
        case .undecodable:
            return false
        case .notAdmitted:
            reject(
                id: id, refusal ?? .unavailable("The router was closed."), bytes: bytes, source: source,
                replyHandler: replyHandler, task: taskName)
            return true
        case .result(let data):
            result = .success(data)
        case .failure(let error):
            result = .failure(error)
        }
        sendSynchronousReply(
            result, id: id, taskName: taskName, source: source, replyHandler: replyHandler,
            generation: generation, channel: channel)
        return true
    }

    private static let nullOptions = Data("null".utf8)

    /// Writes and sends the final reply of a synchronous call (see ``respondSynchronously``) by
    /// the same route as an asynchronous call's (``writeFinalReply(json:id:task:route:generation:channel:)``):
    /// the reply handler when it carries final replies, the call is from a subframe or no channel
    /// was connected; otherwise a script, sent from a new Swift task through the channel that was
    /// connected when the call was admitted.
    private func sendSynchronousReply(
        _ result: Result<Data, BridgeError>, id: String, taskName: String,
        source: MessageSource, replyHandler: ReplyHandler?, generation: UInt64, channel: PageChannel?
    ) {
        let route = CallStateMachine.route(
            replyHandler: replyHandler, source: source, hasChannel: channel != nil, refused: false)
        if case .script = route { replyHandler?.reply(nil) }
        if let outgoing = writeFinalReply(
            json: result, id: id, task: taskName, route: route, generation: generation, channel: channel)
        {
            Task { await send(outgoing) }
        }
    }
}
