public import Foundation

/// A folder of app files (`index.html`, scripts, styles, images) served to a web view under a
/// custom URL scheme, so a page of several files loads with a real origin that an ``AccessPolicy``
/// can allow by name. The platform-neutral half of an asset scheme: which folder, scheme and host,
/// the pages' ``origin`` and the URLs to load. The engine glue serves it: `GTKAssetURIScheme` on
/// WebKitGTK, `WebKitAssetSchemeHandler` (a `WKURLSchemeHandler`) on Apple platforms.
///
/// ```swift
/// let assets = try AssetFolder(directory: URL(fileURLWithPath: "/usr/share/myapp/web"))
/// let policy = AccessPolicy.origins([OriginPattern(origin: assets.origin)])   // app://bundle
/// let start = assets.uri(for: "index.html")                                    // app://bundle/index.html
/// ```
///
/// A document of a scheme with a handler gets the tuple origin `scheme://host` (``origin``; the
/// bridge's relay reads it as `self.origin`, and the router's ``MessageSource`` carries it); a
/// `file:` document's origin is opaque, and the bridge refuses it.
///
/// **What is served.** A `GET` request for `scheme://host/path` is answered with the regular file
/// at `path` inside ``directory``, streamed from disk, with a `Content-Type` from its extension
/// (`html`, `js`/`mjs`, `css`, `json`, `svg`, `png`, `jpg`/`jpeg`, `gif`, `webp`, `wasm`, `woff2`,
/// `txt`; the text types with `charset=utf-8`; `application/octet-stream` otherwise) and
/// `X-Content-Type-Options: nosniff`. A query is ignored. Everything else is refused, without
/// reading outside the directory:
/// - 404: a name that is not there, a directory (there is no index file and no listing), anything
///   that is not a regular file, a symbolic link that leads outside the directory (one inside it
///   is followed), a hidden name (a path component that starts with `.`), another host, a port or
///   a user name;
/// - 400: a path that is not a plain relative file name: `.` or `..` components (also
///   percent-encoded, `%2e%2e`), an encoded `/`, `\` or NUL (`%2f`, `%5c`, `%00`), empty components
///   (`a//b`), invalid percent-encoding or UTF-8, over 4096 bytes;
/// - 405: any method but `GET`;
/// - 403: a request whose `Origin` header names another origin (a `fetch` or module script of
///   another origin's page), and every request while the view's main document is of another
///   origin, before any file is opened.
///
/// **Who can read it.** Every document of the folder's origin in the web view can embed these
/// files, and so can a frame of another origin inside such a page (by `<img src>`, a classic
/// `<script src>` or a stylesheet), like the files of a public web server; another origin cannot
/// read them with `fetch` (403). Put nothing into the directory that a page must not read.
///
/// Thread: a value, usable anywhere.
public struct AssetFolder: Sendable, Hashable {
    /// The directory served, with symbolic links in its own path resolved (files inside it may not
    /// lead out of this path).
    public let directory: URL
    /// The URL scheme, for example `"app"`.
    public let scheme: String
    /// The host of every URL served, for example `"bundle"`; requests for another host are 404.
    public let host: String
    /// The directory's resolved path as `realpath` gave it (no trailing `/`), which file paths are
    /// compared with.
    package let rootPath: String

    /// Checks and creates the folder's description.
    /// - Parameters:
    ///   - directory: a directory the app ships (its file URL); read at every request, so files
    ///     changed later are served as they are then.
    ///   - scheme: the URL scheme; default `"app"`. Lowercase, not one WebKit or BridgeKit uses.
    ///   - host: the host part of the URLs; default `"bundle"`. With `scheme`, it makes the pages'
    ///     origin (``origin``, `app://bundle` by default).
    /// - Throws: ``AssetFolderError/invalidScheme(_:)``, ``AssetFolderError/invalidHost(_:)``
    ///   or ``AssetFolderError/notADirectory(_:)``.
    public init(directory: URL, scheme: String = "app", host: String = "bundle") throws(AssetFolderError) {
        guard AssetPath.isValidScheme(scheme) else { throw .invalidScheme(scheme) }
        guard AssetPath.isValidHost(host) else { throw .invalidHost(host) }
        guard let root = AssetFile.resolveDirectory(directory.path) else { throw .notADirectory(directory.path) }
        self.directory = URL(fileURLWithPath: root, isDirectory: true)
        self.rootPath = root
        self.scheme = scheme
        self.host = host
    }

    /// The origin of the pages served, `scheme://host` (for example `app://bundle`): allow it in
    /// the router's ``AccessPolicy`` (`OriginPattern(origin: assets.origin)`, or the text
    /// `"app://bundle"` in ``AccessPolicy/checkedOrigins(_:allowsSubframes:allowsOpaqueOrigins:)``).
    public var origin: SecurityOrigin { SecurityOrigin(scheme: scheme, host: host) }

    /// The URL of the file at `path` inside ``directory``, as text, to load or link to: for
    /// example `uri(for: "index.html")` is `app://bundle/index.html`. Each component of `path` is
    /// percent-encoded; a leading `/` is ignored.
    /// - Parameter path: a relative path with `/` between components.
    public func uri(for path: String) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).drop { $0.isEmpty }
        let encoded = components.map {
            String($0).addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? ""
        }
        return "\(scheme)://\(host)/" + encoded.joined(separator: "/")
    }

    /// Unreserved characters and sub-delimiters (RFC 3986) that a path segment keeps as they are.
    private static let segmentCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@")
}
