public import Foundation

extension CookieJar {
    /// Saves the jar to a file the host chooses, atomically (a temporary file in the same
    /// folder, `fsync`, then `rename`): a crash mid-save leaves the previous file intact.
    ///
    /// The file is JSON with a format version (see `CookieFile`), created with mode 0600. It
    /// keeps the host-only flag, Secure, HttpOnly, SameSite, creation and last-access times;
    /// expired cookies are never written.
    ///
    /// - Parameters:
    ///   - fileURL: the file to write; its folder must exist. Call from any thread; the jar's
    ///     lock is held only while the cookies are copied, not during I/O.
    ///   - includeSessionCookies: also write cookies without an expiry. Off by default: session
    ///     cookies end with the session (RFC 6265 §5.3 persistent-flag). Turn it on for "log in
    ///     once": frameworks' login cookies are usually session cookies (Flask's, Django's
    ///     without "remember me"), and an app that keeps its user signed in persists them on
    ///     purpose, as browsers do when they restore a session.
    ///   - maxSessionCookieAge: with `includeSessionCookies`, leave out session cookies created
    ///     more than this many seconds ago (by the jar's clock), so a saved login does not live
    ///     forever; `nil` (the default) keeps them all. Persistent cookies keep their own expiry.
    ///   - replacingUnreadableFile: replace a file at `fileURL` that cannot be loaded (corrupt,
    ///     unreadable, a newer version). Off by default, so such a file is never lost silently.
    /// - Throws: ``CookieFileError/refusingToReplaceUnreadableFile(path:cause:)`` when the
    ///   existing file cannot be loaded and `replacingUnreadableFile` is `false`;
    ///   ``CookieFileError/writeFailed(path:reason:)`` when writing fails (the old file stays).
    public func save(
        to fileURL: URL, includeSessionCookies: Bool = false, maxSessionCookieAge: TimeInterval? = nil,
        replacingUnreadableFile: Bool = false
    ) throws(CookieFileError) {
        try save(
            to: fileURL, includeSessionCookies: includeSessionCookies, maxSessionCookieAge: maxSessionCookieAge,
            replacingUnreadableFile: replacingUnreadableFile, beforeRename: {})
    }

    /// ``save(to:includeSessionCookies:maxSessionCookieAge:replacingUnreadableFile:)`` with a hook between the
    /// synced temporary file and the rename, for crash tests.
    func save(
        to fileURL: URL, includeSessionCookies: Bool, maxSessionCookieAge: TimeInterval? = nil,
        replacingUnreadableFile: Bool, beforeRename: () throws -> Void
    ) throws(CookieFileError) {
        if !replacingUnreadableFile { try CookieFile.ensureReplaceable(fileURL) }
        let now = self.now
        let oldestSession = maxSessionCookieAge.map { now.addingTimeInterval(-$0) }
        let entries = storage.withLock { $0.unexpiredInCreationOrder(now: now) }.filter { entry in
            guard entry.cookie.isSession else { return true }
            guard includeSessionCookies else { return false }
            guard let oldestSession, let created = entry.cookie.creationTime else { return true }
            return created >= oldestSession
        }
        let data = try CookieFile.encode(entries)
        try AtomicFileWriter.replace(fileURL, with: data, beforeRename: beforeRename)
    }

    /// Replaces the jar's cookies with those saved in `fileURL`.
    ///
    /// All or nothing: if any part of the file is unreadable or malformed the jar is left
    /// unchanged and the error says why. Cookies that expired since they were saved are
    /// dropped; the §6.1 limits of this jar's configuration are applied.
    ///
    /// - Parameter fileURL: the file written by ``save(to:includeSessionCookies:maxSessionCookieAge:replacingUnreadableFile:)``.
    /// - Returns: the number of cookies the jar holds afterwards; `0` with the jar unchanged
    ///   when there is no file yet (first launch).
    /// - Throws: ``CookieFileError/unreadable(path:reason:)``, ``CookieFileError/corrupt(path:reason:)``
    ///   or ``CookieFileError/unsupportedVersion(path:version:supported:)``.
    @discardableResult
    public func load(from fileURL: URL) throws(CookieFileError) -> Int {
        guard let data = try CookieFile.readData(at: fileURL) else { return 0 }
        let entries = try CookieFile.decode(data, path: fileURL.path(percentEncoded: false))
        let now = self.now
        return storage.withLock { storage in
            storage.replaceAll(with: entries, now: now)
            return storage.entries.count
        }
    }
}
