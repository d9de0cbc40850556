extension WebBridgeRelay {
    /// A user script for the relay's isolated world, injected before ``source``: tells the relay
    /// the longest body it may post, so a body over the native limit is refused before it is
    /// copied out of the page's process (the relay posts only its head and length, which
    /// ``BridgeRouter/refuseOversizedBody(head:byteCount:from:replyHandler:)`` answers), and how
    /// much may await native's answer at once, so a page that posts without waiting cannot fill
    /// the app's memory (the relay answers a call over either limit itself, with
    /// `too_many_pending_calls` or `memory_budget_exceeded`; docs/protocol.md, "Relay").
    ///
    /// - Parameters:
    ///   - maxBodyUnits: the largest body in bytes of UTF-8, as the relay counts them before
    ///     posting; pass ``BridgeLimits/maxPayloadBytes``.
    ///   - maxPendingPosts: the most posts of one frame awaiting native's answer; pass
    ///     ``BridgeLimits/maxPendingCalls``. 0: no limit.
    ///   - maxPendingUnits: the most UTF-16 code units of one frame's posts awaiting native's
    ///     answer; pass ``BridgeLimits/maxHeldBytes``. 0: no limit.
    /// - Returns: the script; it defines `__webbridgeRelaySettings` in the relay's world only.
    public static func settingsScript(maxBodyUnits: Int, maxPendingPosts: Int = 0, maxPendingUnits: Int = 0)
        -> String
    {
        "var __webbridgeRelaySettings = {\"maxBodyUnits\": \(max(0, maxBodyUnits)), "
            + "\"maxPendingPosts\": \(max(0, maxPendingPosts)), \"maxPendingUnits\": \(max(0, maxPendingUnits))};"
    }
}
