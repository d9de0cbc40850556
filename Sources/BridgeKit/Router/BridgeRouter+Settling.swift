import Foundation

extension BridgeRouter {
    /// Settles `call` with `outcome` and sends its final reply, if it is still pending
    /// (``settle(_:_:by:)``, then ``send(_:)``).
    func finish(
        _ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
        by event: CallStateMachine.Event
    ) async {
        if let outgoing = settle(call, consume outcome, by: event) {
            await send(outgoing)
        }
    }

    /// Settles `call` with `outcome`, if it is still pending; the first of reply, error, cancel
    /// and timeout wins and every later one does nothing, and none of them touches a later call
    /// that reuses the id (``CallStateMachine``). The call's other tasks are cancelled; the
    /// settling task itself never is, so its reply is not interrupted. The final reply is written
    /// by the route decided at admission (``writeFinalReply(_:id:task:route:generation:channel:)``).
    ///
    /// Takes `outcome` over: passed with `consume`, the result is released as soon as its reply
    /// is written.
    /// - Parameter event: ``CallStateMachine/Event/workFinished``, ``CallStateMachine/Event/timedOut``
    ///   or ``CallStateMachine/Event/pageCancelled``.
    /// - Returns: the reply script still to send when the reply goes by script.
    func settle(
        _ call: PendingCall, _ outcome: consuming Result<any Encodable & Sendable, BridgeError>,
        by event: CallStateMachine.Event
    ) -> OutgoingScript? {
        let action = state.withLock { $0.handle(event, of: call) }
        guard case .settle(let work, let timer) = action else { return nil }
        timer?.cancel()
        work?.cancel()
        return writeFinalReply(
            consume outcome, id: call.id, task: call.taskName, route: call.route, generation: call.generation)
    }
}
