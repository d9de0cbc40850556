#if WebKitGTK
import CWebKitGTK

/// The cookie jar of a ``GTKWebView``'s web context (`WebKitCookieManager`), with async functions.
///
/// Each call starts the cookie manager operation on the GTK thread and suspends until WebKit's
/// network process answers. After the view closes every function throws
/// ``GTKWebViewError/closed`` and calls in flight settle with it. Thread: main actor.
@MainActor
public final class GTKCookieStore {
    private weak var core: GTKWebViewCore?
    private var isInvalidated = false
    private let running = GLibRunningOperations()

    init(core: GTKWebViewCore) {
        self.core = core
    }

    /// Stores `cookie` (replacing one with the same name, domain and path)
    /// (`webkit_cookie_manager_add_cookie`).
    /// - Throws: ``GTKWebViewError/invalidArgument(_:)`` for fields libsoup cannot carry,
    ///   ``GTKWebViewError/cookieOperationFailed(_:)``, ``GTKWebViewError/closed``,
    ///   ``GTKWebViewError/cancelled``.
    public func add(_ cookie: GTKCookie) async throws(GTKWebViewError) {
        try cookie.validateForSoup()
        let operation = GLibAsyncOperation<Bool> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let ok = webkit_cookie_manager_add_cookie_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error { return .failure(.cookieOperationFailed(gErrorMessageTakingOwnership(error))) }
            return .success(ok != 0)
        }
        try start(operation) { manager, cancellable, userData throws(GTKWebViewError) in
            let soupCookie = try cookie.makeSoupCookie()
            webkit_cookie_manager_add_cookie(manager, soupCookie, cancellable, glibAsyncReady, userData())
            soup_cookie_free(soupCookie)
        }
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

    /// The cookies WebKit would send to `uri` (`webkit_cookie_manager_get_cookies`), HttpOnly included.
    /// - Parameter uri: an absolute URI, e.g. "http://127.0.0.1:8080/".
    /// - Throws: as ``add(_:)``; ``GTKWebViewError/invalidArgument(_:)`` for a NUL in `uri`.
    public func cookies(for uri: String) async throws(GTKWebViewError) -> [GTKCookie] {
        guard isCStringSafe(uri) else { throw .invalidArgument("uri contains NUL") }
        let operation = GLibAsyncOperation<[GTKCookie]> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let list = webkit_cookie_manager_get_cookies_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error { return .failure(.cookieOperationFailed(gErrorMessageTakingOwnership(error))) }
            return .success(GTKCookie.takingSoupCookieList(list))
        }
        try start(operation) { manager, cancellable, userData in
            webkit_cookie_manager_get_cookies(manager, uri, cancellable, glibAsyncReady, userData())
        }
        return try await operation.value().get()
    }

    /// Every cookie in the jar (`webkit_cookie_manager_get_all_cookies`).
    /// - Throws: as ``add(_:)``.
    public func allCookies() async throws(GTKWebViewError) -> [GTKCookie] {
        let operation = GLibAsyncOperation<[GTKCookie]> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let list = webkit_cookie_manager_get_all_cookies_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error { return .failure(.cookieOperationFailed(gErrorMessageTakingOwnership(error))) }
            return .success(GTKCookie.takingSoupCookieList(list))
        }
        try start(operation) { manager, cancellable, userData in
            webkit_cookie_manager_get_all_cookies(manager, cancellable, glibAsyncReady, userData())
        }
        return try await operation.value().get()
    }

    /// Ends running calls with ``GTKWebViewError/closed``; later calls throw it.
    func invalidate() {
        isInvalidated = true
        running.failAll(.closed)
    }

    private func deleteExactly(_ cookie: GTKCookie) async throws(GTKWebViewError) {
        let operation = GLibAsyncOperation<Bool> { source, result in
            var error: UnsafeMutablePointer<GError>?
            let ok = webkit_cookie_manager_delete_cookie_finish(source.map { gCast(gRaw($0)) }, result, &error)
            if let error { return .failure(.cookieOperationFailed(gErrorMessageTakingOwnership(error))) }
            return .success(ok != 0)
        }
        try start(operation) { manager, cancellable, userData throws(GTKWebViewError) in
            let soupCookie = try cookie.makeSoupCookie()
            webkit_cookie_manager_delete_cookie(manager, soupCookie, cancellable, glibAsyncReady, userData())
            soup_cookie_free(soupCookie)
        }
        _ = try await operation.value().get()
    }

    /// Registers `operation` and runs `begin` on the GTK thread with the cookie manager, the
    /// operation's cancellable and a function giving the retained callback user data.
    private func start<Value>(
        _ operation: GLibAsyncOperation<Value>,
        _ begin:
            @Sendable (
                UnsafeMutablePointer<WebKitCookieManager>, UnsafeMutablePointer<GCancellable>,
                () -> UnsafeMutableRawPointer
            )
            throws(GTKWebViewError) -> Void
    ) throws(GTKWebViewError) {
        guard !isInvalidated, let core else { throw .closed }
        running.add(operation)
        let outcome: Result<Void, GTKWebViewError> = GTKThread.perform {
            guard !core.isClosed else { return .failure(.closed) }
            do throws(GTKWebViewError) {
                try begin(core.cookieManager, operation.cancellable.pointer, operation.retainedUserData)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = outcome {
            operation.fail(error)
            throw error
        }
    }
}
#endif
