extension WebBridgeRelay {
    /// A user script for the relay's isolated world, injected before ``source``: tells the relay
    /// the longest body it may post, so a body over the native limit is refused before it is
    /// copied out of the page's process (the relay posts only its head and length, which
    /// ``BridgeRouter/refuseOversizedBody(head:byteCount:from:replyHandler:)`` answers).
    ///
    /// - Parameter maxBodyUnits: the longest body in UTF-16 code units; pass
    ///   ``BridgeLimits/maxPayloadBytes`` (a string has at least as many UTF-8 bytes as code units,
    ///   so a longer one is over that limit for sure).
    /// - Returns: the script; it defines `__webbridgeRelaySettings` in the relay's world only.
    public static func settingsScript(maxBodyUnits: Int) -> String {
        "var __webbridgeRelaySettings = {\"maxBodyUnits\": \(max(0, maxBodyUnits))};"
    }
}
