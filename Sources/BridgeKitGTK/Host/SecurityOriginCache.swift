#if WebKitGTK
import BridgeKit

/// The security origins the relay sent last, parsed once each.
///
/// Every call carries its frame's serialized origin (`self.origin`, read by the relay), and
/// the calls of one page carry the same few. ``SecurityOrigin/init(_:)`` parses through
/// `URLComponents`, which cost about as much as the router's whole handling of a small call
/// (measured with `perf` on bridgebench's 100 B round trips); a hit here is one string comparison.
/// Keeps at most ``capacity`` origins, the most recently added first; an origin that no longer
/// fits is parsed again when it comes back.
///
/// Thread: main actor (GTK's thread), where the registry's handler runs.
@MainActor
final class SecurityOriginCache {
    /// The most origins kept (a page with more frames of distinct origins than this still works).
    static let capacity = 8

    private var entries: [(serialized: String, origin: SecurityOrigin?)] = []

    /// The origin `serialized` names, as ``SecurityOrigin/init(_:)`` parses it: `nil` for
    /// `"null"` and for text that is not an origin.
    func origin(serialized: String) -> SecurityOrigin? {
        for entry in entries where entry.serialized == serialized {
            return entry.origin
        }
        let origin = SecurityOrigin(serialized)
        if entries.count == Self.capacity { entries.removeLast() }
        entries.insert((serialized, origin), at: 0)
        return origin
    }
}
#endif
