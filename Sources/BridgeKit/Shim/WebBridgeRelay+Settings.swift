extension WebBridgeRelay {
    /// A user script for the relay's isolated world, injected before ``source``: tells the relay
    /// the longest body it may post, so a body over the native limit is refused before it is
    /// copied out of the page's process (the relay posts only its head and length, which
    /// ``BridgeRouter/receiveHead(_:byteCount:reason:from:replyHandler:)`` answers), and how
    /// much of one frame's posts native may not have read yet, so a page that posts without
    /// waiting cannot fill the app's memory: a post that does not fit waits in the page's process
    /// until native has read the earlier ones (docs/protocol.md, "Relay: flow control").
    ///
    /// - Parameters:
    ///   - maxBodyUnits: the largest body in bytes of UTF-8, as the relay counts them before
    ///     posting; pass ``BridgeLimits/maxPayloadBytes``.
    ///   - maxUnreadPosts: the most posts of one frame native may not have read yet; pass
    ///     ``BridgeLimits/maxPendingCalls``. 0: no limit.
    ///   - maxUnreadBytes: the most bytes of UTF-8 of one frame's posts native may not have read
    ///     yet (the relay counts three per UTF-16 code unit unless it knows a body is ASCII); pass
    ///     ``BridgeLimits/maxPayloadBytes``. 0: no limit. One post larger than this still goes
    ///     when nothing else is unread.
    /// - Returns: the script; it defines `__webbridgeRelaySettings` in the relay's world only.
    public static func settingsScript(maxBodyUnits: Int, maxUnreadPosts: Int = 0, maxUnreadBytes: Int = 0)
        -> String
    {
        "var __webbridgeRelaySettings = {\"maxBodyUnits\": \(max(0, maxBodyUnits)), "
            + "\"maxUnreadPosts\": \(max(0, maxUnreadPosts)), \"maxUnreadBytes\": \(max(0, maxUnreadBytes))};"
    }
}
