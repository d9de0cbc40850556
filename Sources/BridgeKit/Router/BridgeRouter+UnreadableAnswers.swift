extension BridgeRouter {
    /// Answers a message that could not be read (too large, too deep, not JSON, not a protocol
    /// message).
    ///
    /// When it comes from the main frame and names a pending native-to-page call, it was that
    /// call's answer: the call fails with `error` at once (instead of waiting for its timeout, or
    /// forever without one) and the page gets no reply for an id it never used. Anything else is
    /// answered like any refused message.
    @inline(never)
    func rejectUnreadable(
        id: String?, _ error: BridgeError, bytes: Int, source: MessageSource, replyHandler: ReplyHandler?
    ) {
        if let id, source.isMainFrame,
            state.withLock({ state in state.pageCalls[id].map { $0.generation == state.generation } ?? false })
        {
            replyHandler?.reply(nil)
            record(.inbound, .reply, id: id, task: nil, outcome: error.code, bytes: bytes)
            failPageCall(id, error, notifyPage: false)
            return
        }
        reject(id: id, error, bytes: bytes, source: source, replyHandler: replyHandler)
    }
}
