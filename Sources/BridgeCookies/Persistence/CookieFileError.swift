/// Why saving or loading a cookie file failed.
public enum CookieFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but could not be read (permissions, a directory, an I/O error).
    case unreadable(path: String, reason: String)
    /// The file is not a BridgeKit cookie file, or a record in it is malformed. Nothing was loaded.
    case corrupt(path: String, reason: String)
    /// The file was written by a newer (or unknown) format version. Nothing was loaded.
    case unsupportedVersion(path: String, version: Int, supported: Int)
    /// Saving was refused because the file already there cannot be loaded (`cause`), and
    /// replacing it would destroy it silently. Pass `replacingUnreadableFile: true` to
    /// ``CookieJar/save(to:includeSessionCookies:maxSessionCookieAge:replacingUnreadableFile:)`` to replace it anyway.
    indirect case refusingToReplaceUnreadableFile(path: String, cause: CookieFileError)
    /// Writing the temporary file, syncing it or renaming it over the target failed; the
    /// previous file is untouched.
    case writeFailed(path: String, reason: String)

    /// A sentence for logs. Never contains cookie values.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "Cannot read the cookie file \(path): \(reason)"
        case .corrupt(let path, let reason): return "The cookie file \(path) is corrupt: \(reason)"
        case .unsupportedVersion(let path, let version, let supported):
            return "The cookie file \(path) has format version \(version); this build reads version \(supported)."
        case .refusingToReplaceUnreadableFile(let path, let cause):
            return
                "Not replacing \(path), which cannot be loaded (\(cause)); pass replacingUnreadableFile: true to replace it."
        case .writeFailed(let path, let reason): return "Cannot save the cookie file \(path): \(reason)"
        }
    }
}
