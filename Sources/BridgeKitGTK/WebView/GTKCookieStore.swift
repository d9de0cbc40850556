#if WebKitGTK
import CWebKitGTK

/// The cookie jar of a ``GTKWebView``'s web context (`WebKitCookieManager`), with async functions.
///
/// Every function suspends (integrated mode) or iterates GLib (pumping mode) until WebKit's
/// network process answers; see ``GLibMainLoop``. After the view closes every function throws
/// ``GTKWebViewError/closed`` and calls in flight settle with it. Thread: main actor.
@MainActor
public final class GTKCookieStore {
    private var manager: UnsafeMutablePointer<WebKitCookieManager>?
    private let pending = GLibPendingCalls()

    init(manager: UnsafeMutablePointer<WebKitCookieManager>) {
        g_object_ref(gRaw(manager))
        self.manager = manager
    }

    /// Stores `cookie` (replacing one with the same name, domain and path)
    /// (`webkit_cookie_manager_add_cookie`).
    /// - Throws: ``GTKWebViewError/invalidArgument(_:)`` for fields libsoup cannot carry,
    ///   ``GTKWebViewError/cookieOperationFailed(_:)``, ``GTKWebViewError/closed``,
    ///   ``GTKWebViewError/cancelled``.
    public func add(_ cookie: GTKCookie) async throws(GTKWebViewError) {
        let manager = try openManager()
        let soupCookie = try cookie.makeSoupCookie()
        defer { soup_cookie_free(soupCookie) }
        let operation = GLibAsyncOperation<Bool> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let ok = webkit_cookie_manager_add_cookie_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error { return .failure(.cookieOperationFailed(gErrorMessageTakingOwnership(error))) }
            return .success(ok != 0)
        }
        pending.add(operation)
        webkit_cookie_manager_add_cookie(
            manager, soupCookie, operation.cancellable, glibAsyncReady, operation.retainedUserData())
        _ = try await operation.value().get()
    }

    /// Deletes every cookie with the same name, domain and path as `cookie` (its other fields are
    /// ignored); succeeds when there is none. libsoup's delete (`webkit_cookie_manager_delete_cookie`)
    /// only matches a cookie whose value is equal too (`soup_cookie_equal`), so this reads the jar
    /// first and deletes the stored cookies of that slot.
    /// - Throws: as ``add(_:)``.
    public func delete(_ cookie: GTKCookie) async throws(GTKWebViewError) {
        try cookie.validateForSoup()
        for stored in try await allCookies() where stored.isSameSlot(as: cookie) {
            try await deleteExactly(stored)
        }
    }

    /// Deletes the stored cookie equal to `cookie` in name, value, domain and path.
    private func deleteExactly(_ cookie: GTKCookie) async throws(GTKWebViewError) {
        let manager = try openManager()
        let soupCookie = try cookie.makeSoupCookie()
        defer { soup_cookie_free(soupCookie) }
        let operation = GLibAsyncOperation<Bool> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let ok = webkit_cookie_manager_delete_cookie_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error { return .failure(.cookieOperationFailed(gErrorMessageTakingOwnership(error))) }
            return .success(ok != 0)
        }
        pending.add(operation)
        webkit_cookie_manager_delete_cookie(
            manager, soupCookie, operation.cancellable, glibAsyncReady, operation.retainedUserData())
        _ = try await operation.value().get()
    }

    /// The cookies WebKit would send to `uri` (`webkit_cookie_manager_get_cookies`), HttpOnly included.
    /// - Parameter uri: an absolute URI, e.g. "http://127.0.0.1:8080/".
    /// - Throws: as ``add(_:)``; ``GTKWebViewError/invalidArgument(_:)`` for a NUL in `uri`.
    public func cookies(for uri: String) async throws(GTKWebViewError) -> [GTKCookie] {
        let manager = try openManager()
        guard isCStringSafe(uri) else { throw .invalidArgument("uri contains NUL") }
        let operation = GLibAsyncOperation<[GTKCookie]> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let list = webkit_cookie_manager_get_cookies_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error { return .failure(.cookieOperationFailed(gErrorMessageTakingOwnership(error))) }
            return .success(GTKCookie.takingSoupCookieList(list))
        }
        pending.add(operation)
        webkit_cookie_manager_get_cookies(
            manager, uri, operation.cancellable, glibAsyncReady, operation.retainedUserData())
        return try await operation.value().get()
    }

    /// Every cookie in the jar (`webkit_cookie_manager_get_all_cookies`).
    /// - Throws: as ``add(_:)``.
    public func allCookies() async throws(GTKWebViewError) -> [GTKCookie] {
        let manager = try openManager()
        let operation = GLibAsyncOperation<[GTKCookie]> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let list = webkit_cookie_manager_get_all_cookies_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error { return .failure(.cookieOperationFailed(gErrorMessageTakingOwnership(error))) }
            return .success(GTKCookie.takingSoupCookieList(list))
        }
        pending.add(operation)
        webkit_cookie_manager_get_all_cookies(
            manager, operation.cancellable, glibAsyncReady, operation.retainedUserData())
        return try await operation.value().get()
    }

    /// Settles pending calls with ``GTKWebViewError/closed`` and drops the cookie manager.
    func invalidate() {
        pending.failAll(.closed)
        if let manager {
            self.manager = nil
            g_object_unref(gRaw(manager))
        }
    }

    private func openManager() throws(GTKWebViewError) -> UnsafeMutablePointer<WebKitCookieManager> {
        guard let manager else { throw .closed }
        return manager
    }

    isolated deinit {
        invalidate()
    }
}
#endif
