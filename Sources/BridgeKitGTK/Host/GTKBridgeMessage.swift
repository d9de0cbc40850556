#if WebKitGTK
public import BridgeKit

/// One protocol message as it crossed the bridge of a ``WebKitGTKBridgeHost``, for developer
/// logs (bridgehost's traffic log shows payloads from these): see
/// ``WebKitGTKBridgeHost/onMessage``.
///
/// Unlike `TrafficRecord`, it carries the whole message, payload included, so treat what you
/// log from it as being as sensitive as the page's data.
public struct GTKBridgeMessage: Sendable {
    /// `TrafficRecord/Direction/inbound` for page to native, `TrafficRecord/Direction/outbound`
    /// for native to page.
    public var direction: TrafficRecord.Direction
    /// The message as JSON text: for an inbound message the body the relay posted (not yet
    /// checked by the router); for an outbound one the reply, progress, event or native-to-page
    /// call the router sent (JSON written by BridgeKit; non-ASCII characters may be `\u` escapes).
    public var json: String
    /// For an inbound message: the sender's security origin as the relay read it (`"null"` for
    /// an opaque origin); `nil` for outbound messages.
    public var origin: String?

    /// Creates a message.
    /// - Parameters:
    ///   - direction: see ``direction``.
    ///   - json: see ``json``.
    ///   - origin: see ``origin``.
    public init(direction: TrafficRecord.Direction, json: String, origin: String? = nil) {
        self.direction = direction
        self.json = json
        self.origin = origin
    }

    /// The JSON payload of a script built by `PageScript.build(calling: .receive, …)`, or `nil`
    /// for any other script (cookie assignments, a caller's own script).
    static func payload(ofReceiveScript script: String) -> String? {
        let tail = ");void 0"
        guard script.hasSuffix(tail) else { return nil }
        let head = PageFunction.receive.source + "("
        if script.hasPrefix(head) { return String(script.dropFirst(head.count).dropLast(tail.count)) }
        // A script bound to a document (`PageFunction.deliver(toDocument:)`): its function ends at
        // the first `})(`.
        guard script.hasPrefix(Self.deliverHead), let end = script.range(of: "})(") else { return nil }
        return String(script[end.upperBound...].dropLast(tail.count))
    }

    /// The start of every ``PageFunction/deliver(toDocument:)`` function.
    private static let deliverHead = "(function(m){var f=window.__webbridgeDeliver;"
}
#endif
