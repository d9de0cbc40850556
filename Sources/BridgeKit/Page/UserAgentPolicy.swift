/// What a web view's user agent should be: the engine's own, the engine's with an application
/// token appended (what apps almost always want, field case R45), or — explicitly — a
/// replacement.
///
/// The value is computed synchronously, without asking the page (`navigator.userAgent`), so it
/// can be part of the configuration before the web view exists (field case R47). Apply it with
/// ``WebViewLaunch`` or by hand:
///
/// ```swift
/// // Apple: before WKWebView(frame:configuration:)
/// configuration.applicationNameForUserAgent =
///     policy.applicationName(appendingTo: configuration.applicationNameForUserAgent)
/// // WebKitGTK: policy.applicationToken?.name / .version for
/// // webkit_settings_set_user_agent_with_application_details
/// ```
public struct UserAgentPolicy: Sendable, Hashable {
    private enum Kind: Sendable, Hashable {
        case engineDefault
        case appending(ApplicationToken)
        case replacing(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The engine's own user agent, unchanged.
    public static let engineDefault = UserAgentPolicy(.engineDefault)

    /// The engine's user agent with `token` appended (`UserAgent.appending(_:to:)`).
    public static func appending(_ token: ApplicationToken) -> UserAgentPolicy {
        token.isEmpty ? .engineDefault : UserAgentPolicy(.appending(token))
    }

    /// The engine's user agent with `token` appended.
    /// - Throws: ``UserAgentError`` when the token breaks the character rule of ``UserAgent``.
    public static func appending(_ token: String) throws(UserAgentError) -> UserAgentPolicy {
        appending(try ApplicationToken(token))
    }

    /// Replaces the whole user agent (`WKWebView.customUserAgent`). Sites lose the engine's
    /// tokens; use only when a server demands an exact string.
    /// - Throws: what ``UserAgent/replacement(_:)`` throws.
    public static func replacingEntireUserAgent(_ userAgent: String) throws(UserAgentError) -> UserAgentPolicy {
        UserAgentPolicy(.replacing(try UserAgent.replacement(userAgent)))
    }

    /// The application token to append, or `nil` for the default and for a replacement.
    public var applicationToken: ApplicationToken? {
        if case .appending(let token) = kind { return token }
        return nil
    }

    /// The replacement user agent, or `nil` when the engine's user agent is kept.
    public var replacementUserAgent: String? {
        if case .replacing(let text) = kind { return text }
        return nil
    }

    /// The value for `WKWebViewConfiguration.applicationNameForUserAgent`: the configuration's
    /// current application name with the token appended.
    ///
    /// On iOS the default application name is `Mobile/<build>` (for example `Mobile/15E148`):
    /// assigning the token alone would drop the `Mobile` word, so the token is appended to it.
    /// WebKit then sends `<standard user agent> <application name>`.
    ///
    /// - Parameter current: the configuration's current `applicationNameForUserAgent`.
    /// - Returns: the new application name, or `current` unchanged when there is nothing to
    ///   append (default and replacement policies).
    public func applicationName(appendingTo current: String?) -> String? {
        guard let token = applicationToken else { return current }
        return UserAgent.appending(token, to: current ?? "")
    }

    /// The user agent the engine will send, given its standard user agent (without an
    /// application name). For tests and logs; engines compute it themselves.
    public func effectiveUserAgent(standard: String) -> String {
        switch kind {
        case .engineDefault: standard
        case .appending(let token): UserAgent.appending(token, to: standard)
        case .replacing(let text): text
        }
    }
}
