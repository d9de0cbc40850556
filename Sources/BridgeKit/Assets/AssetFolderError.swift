/// Why an ``AssetFolder`` could not be made or served. Thrown by
/// ``AssetFolder/init(directory:scheme:host:)`` (and so by WebKitGTK's `GTKAssetURIScheme`),
/// before any web view exists, so a mistyped scheme or a missing folder is reported where the app
/// configures it, not as pages that never load; and by Apple's
/// `WebKitAssetSchemeHandler.install(in:)`.
public enum AssetFolderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The scheme is not a lowercase URL scheme name (`[a-z][a-z0-9+.-]*`, at most 32 characters),
    /// or it is one WebKit or BridgeKit already gives a meaning (`http`, `https`, `file`, `data`,
    /// `blob`, `about`, `javascript`, `resource`, `webbridge-binary`, …). The value is the text given.
    case invalidScheme(String)
    /// The host is not a lowercase host name (letters `a`–`z`, digits, `-` and `.`, not starting or
    /// ending with `.` or `-`, at most 253 characters). The value is the text given.
    case invalidHost(String)
    /// The directory does not exist, cannot be resolved or is not a directory. The value is the path given.
    case notADirectory(String)
    /// The web view configuration already has a handler for the scheme, or WebKit handles the
    /// scheme itself (Apple: `WKWebView.handlesURLScheme(_:)`), where WebKit would raise an
    /// exception. The value is the scheme.
    case schemeInUse(String)

    /// A sentence naming the problem and the text that caused it.
    public var description: String {
        switch self {
        case .invalidScheme(let text):
            "\"\(text)\" cannot be an asset scheme: use a lowercase name such as \"app\" that is not http, https, file or another scheme WebKit or BridgeKit uses"
        case .invalidHost(let text):
            "\"\(text)\" cannot be an asset host: use a lowercase host name such as \"bundle\""
        case .notADirectory(let path):
            "\(path) is not a directory the asset scheme can serve"
        case .schemeInUse(let scheme):
            "the web view configuration already has a handler for \"\(scheme)\", or WebKit handles it itself"
        }
    }
}
