import BridgeKit
public import Foundation

/// "Log in once": decides whether a main-frame navigation must be reloaded with the jar's
/// cookies, for the host's navigation delegate.
///
/// When the web view's cookie store may lack the jar's cookies (old systems, a fresh data
/// store, a push still in flight), a navigation request can leave without them and land on a
/// login page. ``decide(url:cookieHeader:)`` answers ``Decision/reload(headers:)`` for such a
/// request: cancel it and load the same URL with the given headers. Each URL is reloaded at
/// most once for this reason until it finishes loading, so a server or engine that drops the
/// header cannot cause a reload loop; the memory of reloaded URLs is bounded.
///
/// Note: WebKit on Apple platforms adds cookies from its store *after* the navigation policy
/// decision, so a navigation request usually shows no `Cookie` field even when cookies will be
/// sent. Prefer ``CookieSync/pushJarToStore()`` before the first load; use this helper where
/// the store cannot be trusted to hold the cookies.
public final class CookieNavigationPolicy: Sendable {
    /// What to do with a navigation.
    public enum Decision: Sendable, Hashable {
        /// Let the navigation proceed.
        case allow
        /// Cancel it and load the same URL again with these header fields (`["Cookie": …]`).
        case reload(headers: [String: String])
    }

    private struct State {
        var reloaded: [String] = []
    }

    /// The jar whose cookies requests must carry.
    public let jar: CookieJar
    /// How many reloaded URLs are remembered at most; the oldest is forgotten first.
    public let memoryLimit: Int
    private let state = Locked(State())

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - jar: the jar whose cookies requests must carry.
    ///   - memoryLimit: the most URLs remembered as reloaded (at least 1; default 32).
    public init(jar: CookieJar, memoryLimit: Int = 32) {
        self.jar = jar
        self.memoryLimit = max(1, memoryLimit)
    }

    /// Decides for a main-frame navigation request.
    ///
    /// - Parameters:
    ///   - url: the request URL.
    ///   - cookieHeader: the request's `Cookie` header value, or `nil` when it has none.
    /// - Returns: ``Decision/allow`` when the jar has no cookie for `url`, when the header
    ///   already carries every `name=value` pair the jar would send, or when `url` was already
    ///   reloaded and has not finished loading since; otherwise ``Decision/reload(headers:)``
    ///   with the jar's `Cookie` header (RFC 6265 §5.4), and `url` is remembered.
    public func decide(url: URL, cookieHeader: String?) -> Decision {
        guard let expected = jar.cookieHeader(for: url) else { return .allow }
        let present = Set((cookieHeader ?? "").split(separator: ";").map { SetCookieParser.trimWhitespace($0) })
        let missing = expected.split(separator: ";").map { SetCookieParser.trimWhitespace($0) }
            .contains { !present.contains($0) }
        guard missing else { return .allow }
        let key = Self.memoryKey(url)
        let isFirstTime = state.withLock { state -> Bool in
            guard !state.reloaded.contains(key) else { return false }
            state.reloaded.append(key)
            if state.reloaded.count > memoryLimit { state.reloaded.removeFirst(state.reloaded.count - memoryLimit) }
            return true
        }
        return isFirstTime ? .reload(headers: ["Cookie": expected]) : .allow
    }

    /// Forgets `url` after it loaded, so a later navigation to it is checked afresh.
    /// Call from the delegate's "did finish navigation".
    public func didFinishLoading(_ url: URL) {
        let key = Self.memoryKey(url)
        state.withLock { $0.reloaded.removeAll { $0 == key } }
    }

    /// Forgets every reloaded URL.
    public func reset() {
        state.withLock { $0.reloaded.removeAll() }
    }

    /// The URL without its fragment (fragments never reach the server).
    private static func memoryKey(_ url: URL) -> String {
        let text = url.absoluteString
        return text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }
}
