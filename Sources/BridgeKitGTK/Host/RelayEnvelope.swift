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
    /// world only the relay can post from, so that means a bug, never page input). The relay's
    /// own format takes ``fastParse(_:)``; anything else goes through `JSONDecoder`.
    static func parse(_ text: String) -> RelayEnvelope? {
        var text = text
        return text.withUTF8 { bytes in
            if let envelope = fastParse(bytes) { return envelope }
            guard let base = bytes.baseAddress else { return nil }
            // No copy of the text: the decoder only reads it during this call.
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
            return try? JSONDecoder().decode(RelayEnvelope.self, from: data)
        }
    }
}
#endif
