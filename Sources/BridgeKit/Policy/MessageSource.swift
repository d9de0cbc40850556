/// Where a message came from: the sending frame's origin and whether it is the main frame.
///
/// Hosts build it from what the engine reports, never from the message body: on Apple platforms
/// from `WKScriptMessage.frameInfo` (`securityOrigin`, `isMainFrame`); on WebKitGTK from the
/// relay script that runs in an isolated script world page scripts cannot reach.
public struct MessageSource: Sendable, Hashable {
    /// The sending frame's origin; `nil` for an opaque origin (sandboxed frame, `data:`) or
    /// when the engine does not say.
    public var origin: SecurityOrigin?
    /// Whether the sending frame is the main (top-level) frame.
    public var isMainFrame: Bool

    /// Creates a source.
    public init(origin: SecurityOrigin?, isMainFrame: Bool) {
        self.origin = origin
        self.isMainFrame = isMainFrame
    }

    /// A main-frame source with the given serialized origin, for tests and simple hosts.
    public static func mainFrame(_ origin: String) -> MessageSource {
        MessageSource(origin: SecurityOrigin(origin), isMainFrame: true)
    }

    /// A subframe source with the given serialized origin.
    public static func subframe(_ origin: String) -> MessageSource {
        MessageSource(origin: SecurityOrigin(origin), isMainFrame: false)
    }

    /// A main-frame source with `origin` (`nil`: an opaque origin), for hosts that already hold a
    /// ``SecurityOrigin`` (one made with ``SecurityOrigin/init(url:)`` from the view's URL).
    public static func mainFrame(_ origin: SecurityOrigin?) -> MessageSource {
        MessageSource(origin: origin, isMainFrame: true)
    }

    /// A subframe source with `origin` (`nil`: an opaque origin).
    public static func subframe(_ origin: SecurityOrigin?) -> MessageSource {
        MessageSource(origin: origin, isMainFrame: false)
    }
}
