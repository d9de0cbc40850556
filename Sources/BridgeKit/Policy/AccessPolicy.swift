/// Which frames and origins may call a task. Secure by default: the main frame only, only the
/// origins listed, and never a document without an origin of its own.
///
/// A sender's origin is its document's security origin, as the engine reports it
/// (``MessageSource/origin``), never its URL's: a document with an opaque origin (served with
/// `Content-Security-Policy: sandbox`, a sandboxed iframe without `allow-same-origin`, a `data:`
/// document), or with none the engine can name, has **no origin** and is refused with
/// `forbidden` (`reason` `no_origin`) unless ``allowsOpaqueOrigins`` is `true` (SECURITY.md,
/// "Opaque origins"; issue 20).
///
/// The router has one policy (``BridgeConfiguration/policy``); a task may bring its own
/// (``BridgeTask/policy``), which then replaces the router's for that task.
public struct AccessPolicy: Sendable, Hashable {
    /// Which origins may call.
    public enum Origins: Sendable, Hashable {
        /// Only origins matched by one of these patterns. An empty list allows nothing.
        case only([OriginPattern])
        /// Any tuple origin (scheme, host, port). Opaque origins are not included: they need
        /// ``AccessPolicy/allowsOpaqueOrigins`` as well. Must be spelled out; never a default.
        case anyOrigin
    }

    /// Which origins may call. Default: none (`.only([])`), so a router that was never told
    /// which pages it serves refuses every call with `forbidden`.
    public var origins: Origins
    /// Whether calls from subframes (iframes) are accepted. Default `false`.
    public var allowsSubframes: Bool
    /// Whether a sender **without** an origin is accepted: an opaque origin (CSP `sandbox`, a
    /// sandboxed iframe without `allow-same-origin`, `data:`), a document whose origin has no
    /// host (`file:`), or one the engine does not report. Such a sender is accepted whatever
    /// ``origins`` says, since there is no origin to match; any page can make such a document,
    /// so only opt in for tasks any page may call. Default `false`.
    public var allowsOpaqueOrigins: Bool

    /// Creates a policy.
    /// - Parameters:
    ///   - origins: which origins may call; default none.
    ///   - allowsSubframes: whether subframes may call; default `false`.
    ///   - allowsOpaqueOrigins: whether a sender without an origin may call; default `false`.
    public init(origins: Origins = .only([]), allowsSubframes: Bool = false, allowsOpaqueOrigins: Bool = false) {
        self.origins = origins
        self.allowsSubframes = allowsSubframes
        self.allowsOpaqueOrigins = allowsOpaqueOrigins
    }

    /// Main frame only, from the given origins (`"https://app.example"`, `"https://*.example.com"`).
    /// - Parameters:
    ///   - patterns: the origins that may call.
    ///   - allowsSubframes: whether subframes may call; default `false`.
    ///   - allowsOpaqueOrigins: whether a sender without an origin may call; default `false`.
    /// - Returns: the policy.
    public static func origins(
        _ patterns: [OriginPattern], allowsSubframes: Bool = false,
        allowsOpaqueOrigins: Bool = false
    ) -> AccessPolicy {
        AccessPolicy(
            origins: .only(patterns), allowsSubframes: allowsSubframes, allowsOpaqueOrigins: allowsOpaqueOrigins)
    }

    /// Any tuple origin, main frame only unless `allowsSubframes`, no opaque origin unless
    /// `allowsOpaqueOrigins`. For local development pages and tests; documented in SECURITY.md
    /// as a deliberate opt-out.
    /// - Parameters:
    ///   - allowsSubframes: whether subframes may call; default `false`.
    ///   - allowsOpaqueOrigins: whether a sender without an origin may call; default `false`.
    /// - Returns: the policy.
    public static func anyOrigin(allowsSubframes: Bool = false, allowsOpaqueOrigins: Bool = false) -> AccessPolicy {
        AccessPolicy(origins: .anyOrigin, allowsSubframes: allowsSubframes, allowsOpaqueOrigins: allowsOpaqueOrigins)
    }

    /// The reason a source is refused, or `nil` when it is allowed. Pure; any thread.
    ///
    /// - Parameter source: the sender, as the engine reported it.
    /// - Returns: `"subframe"` when the frame check fails, `"no_origin"` for a sender without an
    ///   origin (opaque or unknown) unless ``allowsOpaqueOrigins``, `"origin_not_allowed"` when no
    ///   pattern matches.
    public func refusal(for source: MessageSource) -> String? {
        if !source.isMainFrame && !allowsSubframes { return "subframe" }
        guard let origin = source.origin else { return allowsOpaqueOrigins ? nil : "no_origin" }
        switch origins {
        case .anyOrigin:
            return nil
        case .only(let patterns):
            return patterns.contains { $0.matches(origin) } ? nil : "origin_not_allowed"
        }
    }

    /// Main frame only, from the given origins, each checked: the throwing form of
    /// ``origins(_:allowsSubframes:allowsOpaqueOrigins:)`` for origins read from settings, a
    /// command line or a server.
    ///
    /// ```swift
    /// let policy = try AccessPolicy.checkedOrigins(["https://app.example", "https://*.example.com"])
    /// ```
    /// - Parameters:
    ///   - patterns: the origins that may call, as text (see ``OriginPattern``).
    ///   - allowsSubframes: whether subframes may call; default `false`.
    ///   - allowsOpaqueOrigins: whether a sender without an origin may call; default `false`.
    /// - Returns: the policy.
    /// - Throws: ``OriginPatternError`` for the first text that is not a pattern (for example
    ///   `"app.example"`, which has no scheme).
    public static func checkedOrigins(
        _ patterns: [String], allowsSubframes: Bool = false,
        allowsOpaqueOrigins: Bool = false
    ) throws(OriginPatternError) -> AccessPolicy {
        var checked: [OriginPattern] = []
        for text in patterns { checked.append(try OriginPattern(validating: text)) }
        return .origins(checked, allowsSubframes: allowsSubframes, allowsOpaqueOrigins: allowsOpaqueOrigins)
    }

    /// The problems of this policy's patterns, in list order; empty when every pattern is valid
    /// (always for ``Origins/anyOrigin``). Pure; any thread.
    public var patternErrors: [OriginPatternError] {
        guard case .only(let patterns) = origins else { return [] }
        return patterns.compactMap(\.error)
    }

    /// Checks that every pattern of ``origins`` is valid, so a mistyped origin fails when the
    /// policy is built instead of refusing every call with `forbidden`.
    /// - Throws: ``OriginPatternError`` for the first invalid pattern.
    public func validate() throws(OriginPatternError) {
        if let error = patternErrors.first { throw error }
    }
}
