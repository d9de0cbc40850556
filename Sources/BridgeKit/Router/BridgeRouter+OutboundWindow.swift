extension BridgeRouter {
    /// Runs `send`, the encoding and sending of one progress value or event, once the router has a
    /// place for it in its ``OutboundWindow`` (``BridgeLimits/maxOutboundInFlight``), and gives the
    /// place back when `send` returns or throws. Waits in arrival order; never throws on its own.
    /// Any thread.
    func inOutboundWindow<Result>(_ send: () async throws -> Result) async rethrows -> Result {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let hasPlace = state.withLock { $0.outboundWindow.take(waiter) }
            if hasPlace { waiter.resume() }
        }
        defer { state.withLock { $0.outboundWindow.giveBack() }?.resume() }
        return try await send()
    }

    /// How many senders wait for a place now (for tests).
    package var outboundWaitingCount: Int { state.withLock { $0.outboundWindow.waitingCount } }

    /// Lets every sender waiting for a place go now (``close()``): the scripts it sends then find
    /// no channel, and later senders do not wait.
    func openOutboundWindow() {
        for waiter in state.withLock({ $0.outboundWindow.close() }) { waiter.resume() }
    }
}
