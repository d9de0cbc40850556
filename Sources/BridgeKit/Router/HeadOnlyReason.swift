/// Why a host handed the router only the head of a message
/// (``BridgeRouter/receiveHead(_:byteCount:reason:from:replyHandler:)``).
public enum HeadOnlyReason: Sendable, Hashable {
    /// The body is over ``BridgeLimits/maxPayloadBytes``: the WebKitGTK relay measured the page's
    /// string and posted only its head and length (``WebBridgeRelay/settingsScript(maxBodyUnits:maxUnreadPosts:maxUnreadBytes:)``).
    case overLimit
    /// No policy admitted the sender when the host read the message
    /// (``BridgeRouter/admitsSender(_:)``), so it read only the head of a large body. The call is
    /// refused `forbidden` even when a task admitting the sender was registered before the router
    /// handles it: the page sent it before the app admitted it.
    case senderNotAdmitted
}
