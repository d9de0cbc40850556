#if WebKitGTK
/// Why a ``GTKAssetURIScheme`` could not be made. Thrown by
/// ``GTKAssetURIScheme/init(directory:scheme:host:)``, before any web view exists, so a mistyped
/// scheme or a missing folder is reported where the app configures it, not as pages that never load.
public enum GTKAssetURISchemeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The scheme is not a lowercase URI scheme name (`[a-z][a-z0-9+.-]*`, at most 32 characters),
    /// or it is one WebKit or BridgeKit already gives a meaning (`http`, `https`, `file`, `data`,
    /// `blob`, `about`, `javascript`, `resource`, `webbridge-binary`, …). The value is the text given.
    case invalidScheme(String)
    /// The host is not a lowercase host name (letters `a`–`z`, digits, `-` and `.`, not starting or
    /// ending with `.` or `-`, at most 253 characters). The value is the text given.
    case invalidHost(String)
    /// The directory does not exist, cannot be resolved or is not a directory. The value is the path given.
    case notADirectory(String)

    /// A sentence naming the problem and the text that caused it.
    public var description: String {
        switch self {
        case .invalidScheme(let text):
            "\"\(text)\" cannot be an asset scheme: use a lowercase name such as \"app\" that is not http, https, file or another scheme WebKit or BridgeKit uses"
        case .invalidHost(let text):
            "\"\(text)\" cannot be an asset host: use a lowercase host name such as \"bundle\""
        case .notADirectory(let path):
            "\(path) is not a directory the asset scheme can serve"
        }
    }
}
#endif
