/// Which frames and origins may call a task. Secure by default: the main frame only, and only
/// the origins listed.
///
/// The router has one policy (``BridgeConfiguration/policy``); a task may bring its own
/// (``BridgeTask/policy``), which then replaces the router's for that task.
public struct AccessPolicy: Sendable, Hashable {
    /// Which origins may call.
    public enum Origins: Sendable, Hashable {
        /// Only origins matched by one of these patterns. An empty list allows nothing.
        case only([OriginPattern])
        /// Any origin, including opaque ones. Must be spelled out; never a default.
        case anyOrigin
    }

    /// Which origins may call. Default: none (`.only([])`), so a router that was never told
    /// which pages it serves refuses every call with `forbidden`.
    public var origins: Origins
    /// Whether calls from subframes (iframes) are accepted. Default `false`.
    public var allowsSubframes: Bool

    /// Creates a policy.
    public init(origins: Origins = .only([]), allowsSubframes: Bool = false) {
        self.origins = origins
        self.allowsSubframes = allowsSubframes
    }

    /// Main frame only, from the given origins (`"https://app.example"`, `"https://*.example.com"`).
    public static func origins(_ patterns: [OriginPattern], allowsSubframes: Bool = false) -> AccessPolicy {
        AccessPolicy(origins: .only(patterns), allowsSubframes: allowsSubframes)
    }

    /// Any origin, main frame only unless `allowsSubframes`. For local development pages and
    /// tests; documented in SECURITY.md as a deliberate opt-out.
    public static func anyOrigin(allowsSubframes: Bool = false) -> AccessPolicy {
        AccessPolicy(origins: .anyOrigin, allowsSubframes: allowsSubframes)
    }

    /// The reason a source is refused, or `nil` when it is allowed.
    ///
    /// - Returns: `"subframe"` when the frame check fails, `"no_origin"` for an opaque or unknown
    ///   origin under an allowlist, `"origin_not_allowed"` when no pattern matches.
    public func refusal(for source: MessageSource) -> String? {
        if !source.isMainFrame && !allowsSubframes { return "subframe" }
        switch origins {
        case .anyOrigin:
            return nil
        case .only(let patterns):
            guard let origin = source.origin else { return "no_origin" }
            return patterns.contains { $0.matches(origin) } ? nil : "origin_not_allowed"
        }
    }
}
