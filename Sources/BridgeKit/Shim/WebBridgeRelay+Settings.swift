extension WebBridgeRelay {
    /// A user script for the relay's isolated world, injected before ``source``: tells the relay
    /// the longest body it may post, so a body over the native limit is refused before it is
    /// copied out of the page's process (the relay posts only its head and length, which
    /// ``BridgeRouter/refuseOversizedBody(head:byteCount:from:replyHandler:)`` answers).
    ///
    /// - Parameter maxBodyUnits: the largest body in bytes of UTF-8, as the relay counts them
    ///   before posting; pass ``BridgeLimits/maxPayloadBytes``.
    /// - Returns: the script; it defines `__webbridgeRelaySettings` in the relay's world only.
    public static func settingsScript(maxBodyUnits: Int) -> String {
        "var __webbridgeRelaySettings = {\"maxBodyUnits\": \(max(0, maxBodyUnits))};"
    }
}
