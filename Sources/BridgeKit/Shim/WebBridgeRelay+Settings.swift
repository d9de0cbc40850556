extension WebBridgeRelay {
    /// The most posts of one frame the relay lets native leave unread when the host passes
    /// ``BridgeLimits`` (``settingsScript(limits:)``), however large the router's
    /// ``BridgeLimits/maxPendingCalls``: 64, the most calls the benchmark keeps in flight.
    ///
    /// WebKit reads every web view's messages on one thread of the app, in the order they arrive,
    /// before the views take turns on the main actor; so what one frame may leave unread is also
    /// what another view's message may wait behind (attack 18; docs/protocol.md, "Relay: flow
    /// control"). A page with more posts outstanding loses nothing: the rest wait in its own
    /// process until native has read the earlier ones.
    public static let maxUnreadPostsPerFrame = 64

    /// ``settingsScript(maxBodyUnits:maxUnreadPosts:maxUnreadBytes:)`` for a router's limits: the
    /// largest body is ``BridgeLimits/maxPayloadBytes``; the smaller of
    /// ``BridgeLimits/maxPendingCalls`` and ``maxUnreadPostsPerFrame`` posts, of at most
    /// ``BridgeLimits/maxPayloadBytes`` bytes together, of one frame may be unread.
    /// - Parameter limits: the limits of the router the relay's messages go to.
    /// - Returns: the script; it defines `__webbridgeRelaySettings` in the relay's world only.
    public static func settingsScript(limits: BridgeLimits) -> String {
        settingsScript(
            maxBodyUnits: limits.maxPayloadBytes,
            maxUnreadPosts: min(limits.maxPendingCalls, maxUnreadPostsPerFrame),
            maxUnreadBytes: limits.maxPayloadBytes)
    }

    /// A user script for the relay's isolated world, injected before ``source``: tells the relay
    /// the longest body it may post, so a body over the native limit is refused before it is
    /// copied out of the page's process (the relay posts only its head and length, which
    /// ``BridgeRouter/receiveHead(_:byteCount:reason:from:replyHandler:)`` answers), and how
    /// much of one frame's posts native may not have read yet, so a page that posts without
    /// waiting cannot fill the app's memory: a post that does not fit waits in the page's process
    /// until native has read the earlier ones (docs/protocol.md, "Relay: flow control").
    /// A host with a router passes its limits instead (``settingsScript(limits:)``).
    ///
    /// - Parameters:
    ///   - maxBodyUnits: the largest body in bytes of UTF-8, as the relay counts them before
    ///     posting.
    ///   - maxUnreadPosts: the most posts of one frame native may not have read yet. 0: no limit.
    ///   - maxUnreadBytes: the most bytes of UTF-8 of one frame's posts native may not have read
    ///     yet (the relay counts three per UTF-16 code unit unless it knows a body is ASCII).
    ///     0: no limit. One post larger than this still goes when nothing else is unread.
    /// - Returns: the script; it defines `__webbridgeRelaySettings` in the relay's world only.
    public static func settingsScript(maxBodyUnits: Int, maxUnreadPosts: Int = 0, maxUnreadBytes: Int = 0)
        -> String
    {
        "var __webbridgeRelaySettings = {\"maxBodyUnits\": \(max(0, maxBodyUnits)), "
            + "\"maxUnreadPosts\": \(max(0, maxUnreadPosts)), \"maxUnreadBytes\": \(max(0, maxUnreadBytes))};"
    }
}
