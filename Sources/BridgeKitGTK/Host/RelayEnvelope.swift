#if WebKitGTK
import BridgeKit
import Foundation

/// What `js/webbridge-relay.js` posts from the isolated script world: the page's message text,
/// wrapped with the sender's origin and frame as the relay read them (`location.origin`,
/// `window.top === window`). Page scripts cannot reach that world, so they cannot forge these.
struct RelayEnvelope: Decodable {
    let origin: String
    let mainFrame: Bool
    let body: String

    /// The sender, as BridgeKit's policy sees it. `"null"` (opaque origins) becomes `nil`.
    var source: MessageSource {
        MessageSource(origin: SecurityOrigin(origin), isMainFrame: mainFrame)
    }

    /// Parses the relay's JSON text; `nil` when it is not a relay envelope (the handler lives in a
    /// world only the relay can post from, so that means a bug, never page input).
    static func parse(_ text: String) -> RelayEnvelope? {
        try? JSONDecoder().decode(RelayEnvelope.self, from: Data(text.utf8))
    }
}
#endif
