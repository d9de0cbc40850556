#if WebKitGTK
import BridgeKit

/// What `js/webbridge-relay.js` posts from the isolated script world: the array
/// `[origin, "main" | "sub", body]`, the sender's origin and frame as the relay read them
/// (`location.origin`, `window.top === window`) and the page's message text. Page scripts cannot
/// reach that world, so they cannot forge the first two. The body arrives as its own string
/// (``GTKScriptMessage/stringElements``), never escaped into JSON text, so it is neither
/// unescaped nor copied here.
struct RelayEnvelope {
    let origin: String
    let mainFrame: Bool
    let body: String

    /// The sender, as BridgeKit's policy sees it. `"null"` (opaque origins) becomes `nil`.
    var source: MessageSource {
        MessageSource(origin: SecurityOrigin(origin), isMainFrame: mainFrame)
    }

    /// Reads the relay's array; `nil` for anything else (the handler lives in a world only the
    /// relay can post from, so that means a bug, never page input).
    /// - Parameter elements: the posted array's elements (``GTKScriptMessage/stringElements``).
    static func parse(_ elements: [String?]) -> RelayEnvelope? {
        guard elements.count == 3, let origin = elements[0], let frame = elements[1], let body = elements[2] else { return nil }
        switch frame {
        case "main": return RelayEnvelope(origin: origin, mainFrame: true, body: body)
        case "sub": return RelayEnvelope(origin: origin, mainFrame: false, body: body)
        default: return nil
        }
    }
}
#endif
