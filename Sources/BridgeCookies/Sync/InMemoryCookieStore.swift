import BridgeKit

/// A ``WebCookieStore`` in memory, for tests of ``CookieSync`` and of hosts' own code.
///
/// Keys cookies by ``Cookie/key`` (name, domain without a leading dot, path), like WebKit.
/// It stores cookies as given, without validation — as a real engine's native API does — so
/// tests can put into it what a page or server might. Thread-safe (one lock).
public final class InMemoryCookieStore: WebCookieStore {
    private struct State {
        var cookies: [CookieKey: Cookie] = [:]
        var setCount = 0
        var setHistory: [CookieKey] = []
        var deleteCount = 0
    }

    private let state: Locked<State>
    private let setFailure: (@Sendable (Cookie) -> (any Error)?)?

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - cookies: the initial content.
    ///   - setFailure: called for each ``setCookie(_:)``; a returned error is thrown and the
    ///     cookie is not stored. Use it to test error reporting.
    public init(cookies: [Cookie] = [], setFailure: (@Sendable (Cookie) -> (any Error)?)? = nil) {
        var initial = State()
        for cookie in cookies { initial.cookies[cookie.key] = cookie }
        self.state = Locked(initial)
        self.setFailure = setFailure
    }

    /// A snapshot of the content, ordered by key.
    public var cookies: [Cookie] {
        state.withLock { $0.cookies.values.sorted { $0.key < $1.key } }
    }

    /// How many times ``setCookie(_:)`` was called, failed calls included.
    public var setCount: Int { state.withLock { $0.setCount } }

    /// The key of every cookie ``setCookie(_:)`` stored, in the order the calls arrived (an
    /// engine stamps its creation time then, so this is the order the engine will send them in).
    public var setHistory: [CookieKey] { state.withLock { $0.setHistory } }

    /// How many times ``deleteCookie(_:)`` was called.
    public var deleteCount: Int { state.withLock { $0.deleteCount } }

    /// Every cookie, ordered by key.
    public func allCookies() async throws -> [Cookie] {
        cookies
    }

    /// Stores `cookie` unless `setFailure` returns an error for it.
    /// - Throws: the error `setFailure` returned.
    public func setCookie(_ cookie: Cookie) async throws {
        let failure = setFailure?(cookie)
        state.withLock { state in
            state.setCount += 1
            if failure == nil {
                state.cookies[cookie.key] = cookie
                state.setHistory.append(cookie.key)
            }
        }
        if let failure { throw failure }
    }

    /// Removes the cookie with `cookie`'s key, if present.
    public func deleteCookie(_ cookie: Cookie) async throws {
        state.withLock { state in
            state.deleteCount += 1
            state.cookies[cookie.key] = nil
        }
    }
}
