extension BridgeRouter {
    /// A sender waiting for a place in the ``OutboundWindow``.
    struct OutboundSender: Sendable {
        /// Who waits: compared by identity to take it out of the queue when its Swift task is
        /// cancelled.
        final class Token: Sendable {}
        let token: Token
        /// Resumed with `true` when it has a place (or the window was opened by ``close()``),
        /// `false` when it left because its Swift task was cancelled.
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Runs `send`, the encoding and sending of one progress value or event, once the router has a
    /// place for it in its ``OutboundWindow`` (``BridgeLimits/maxOutboundInFlight``), and gives the
    /// place back when `send` returns or throws. Waits in arrival order. Any thread.
    /// - Throws: what `send` throws; ``BridgeError`` `cancelled` when the calling Swift task is
    ///   cancelled while it waits for a place (`send` does not run). A sender that finds a place
    ///   does not wait, and sends even if its task was cancelled before.
    func inOutboundWindow<Result>(_ send: () async throws -> Result) async throws -> Result {
        let token = OutboundSender.Token()
        let placed = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let sender = OutboundSender(token: token, continuation: continuation)
                let answer = state.withLock { state -> Bool? in
                    if state.outboundWindow.take(sender) { return true }
                    // Cancelled before it was queued: the cancellation handler found nothing to
                    // take out (it runs under the same lock, after the task is marked cancelled).
                    guard Task.isCancelled else { return nil }
                    _ = state.outboundWindow.withdraw { $0.token === token }
                    return false
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            state.withLock { $0.outboundWindow.withdraw { $0.token === token } }?
                .continuation.resume(returning: false)
        }
        guard placed else {
            throw BridgeError.cancelled("The Swift task was cancelled while it waited to send.")
        }
        defer { state.withLock { $0.outboundWindow.giveBack() }?.continuation.resume(returning: true) }
        return try await send()
    }

    /// How many senders wait for a place now (for tests).
    package var outboundWaitingCount: Int { state.withLock { $0.outboundWindow.waitingCount } }

    /// Lets every sender waiting for a place go now (``close()``): the scripts it sends then find
    /// no channel, and later senders do not wait.
    func openOutboundWindow() {
        for sender in state.withLock({ $0.outboundWindow.close() }) { sender.continuation.resume(returning: true) }
    }
}
