#if WebKitGTK
public import BridgeKit
public import Foundation

/// Serves the files of one directory the app chooses to its web view under a custom URI scheme,
/// so a page of several files (`index.html`, scripts, styles, images) loads with a real origin that
/// an `AccessPolicy` can allow by name: the WebKitGTK counterpart of a `WKURLSchemeHandler` that
/// serves an app's bundle.
///
/// ```swift
/// let assets = try GTKAssetURIScheme(directory: URL(fileURLWithPath: "/usr/share/myapp/web"))
/// let webView = try GTKWebView(configuration: GTKWebViewConfiguration(assetScheme: assets))
/// let router = BridgeRouter(configuration: BridgeConfiguration(policy: .origins([OriginPattern(origin: assets.origin)])))
/// // … WebKitGTKBridgeHost(router: router, webView: webView).attach() …
/// try webView.load(uri: assets.uri(for: "index.html"))   // app://bundle/index.html
/// ```
///
/// The view registers the scheme on its web context (`webkit_web_context_register_uri_scheme`) as
/// secure (`webkit_security_manager_register_uri_scheme_as_secure`) when it is created. WebKit gives
/// a document of a scheme that has a handler a tuple origin, `scheme://host` (``origin``; the
/// bridge's relay reads it as `self.origin`, and the router's `MessageSource` carries it), and
/// makes it a secure context; a `file:` document's origin is opaque, and the bridge refuses it.
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
///   a user name, and a request of a web view that does not serve this scheme;
/// - 400: a path that is not a plain relative file name: `.` or `..` components (also
///   percent-encoded, `%2e%2e`), an encoded `/`, `\` or NUL (`%2f`, `%5c`, `%00`), empty components
///   (`a//b`), invalid percent-encoding or UTF-8, over 4096 bytes;
/// - 405: any method but `GET`;
/// - 403: a request whose `Origin` header names another origin (a `fetch` or module script of
///   another origin's page), before any file is opened.
///
/// **Who can read it.** Every document in the web view can embed these files (a page of another
/// origin by `<img src>`, a classic `<script src>` or a stylesheet), like the files of a public web
/// server; it cannot read them with `fetch` (403, and WebKit withholds the answer from it anyway).
/// Put nothing into the directory that a page must not read.
///
/// Thread: a value, usable anywhere; requests are answered on WebKitGTK's thread and files are
/// opened off it.
public struct GTKAssetURIScheme: Sendable, Hashable {
    /// The directory served, with symbolic links in its own path resolved (files inside it may not
    /// lead out of this path).
    public let directory: URL
    /// The URI scheme, for example `"app"`.
    public let scheme: String
    /// The host of every URI served, for example `"bundle"`; requests for another host are 404.
    public let host: String

    /// Checks and creates the scheme.
    /// - Parameters:
    ///   - directory: a directory the app ships (its file URL); read at every request, so files
    ///     changed later are served as they are then.
    ///   - scheme: the URI scheme; default `"app"`. Lowercase, not one WebKit or BridgeKit uses.
    ///   - host: the host part of the URIs; default `"bundle"`. With `scheme`, it makes the pages'
    ///     origin (``origin``, `app://bundle` by default).
    /// - Throws: ``GTKAssetURISchemeError/invalidScheme(_:)``, ``GTKAssetURISchemeError/invalidHost(_:)``
    ///   or ``GTKAssetURISchemeError/notADirectory(_:)``.
    public init(directory: URL, scheme: String = "app", host: String = "bundle") throws(GTKAssetURISchemeError) {
        guard Self.isValidScheme(scheme) else { throw .invalidScheme(scheme) }
        guard Self.isValidHost(host) else { throw .invalidHost(host) }
        guard let root = GTKAssetFile.resolveDirectory(directory.path) else {
            throw .notADirectory(directory.path)
        }
        self.directory = URL(fileURLWithPath: root, isDirectory: true)
        self.scheme = scheme
        self.host = host
    }

    /// The origin of the pages served, `scheme://host` (for example `app://bundle`): allow it in
    /// the router's `AccessPolicy` (`OriginPattern(origin: assets.origin)`, or the text
    /// `"app://bundle"` in `AccessPolicy.checkedOrigins`).
    public var origin: SecurityOrigin { SecurityOrigin(scheme: scheme, host: host) }

    /// The URI of the file at `path` inside ``directory``, to load (`GTKWebView.load(uri:)`) or
    /// link to, for example `uri(for: "index.html")` is `app://bundle/index.html`. Each component of
    /// `path` is percent-encoded; a leading `/` is ignored.
    /// - Parameter path: a relative path with `/` between components.
    public func uri(for path: String) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).drop { $0.isEmpty }
        let encoded = components.map {
            String($0).addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? ""
        }
        return "\(scheme)://\(host)/" + encoded.joined(separator: "/")
    }

    /// The path of the root directory, as the request handler compares paths (no trailing `/`).
    var rootPath: String { directory.path }

    /// Unreserved characters and sub-delimiters (RFC 3986) that a path segment keeps as they are.
    private static let segmentCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@")

    /// Schemes that already mean something to WebKit, the web platform or BridgeKit.
    static let reservedSchemes: Set<String> = [
        "http", "https", "file", "data", "blob", "about", "javascript", "ws", "wss", "ftp", "resource",
        "view-source", "filesystem", "webkit", "webkit-pdfjs-viewer", "mailto", "tel", "sms", "urn",
        "webbridge-binary",
    ]

    static func isValidScheme(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, bytes.count <= 32, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        let allowed = bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        return allowed && !reservedSchemes.contains(text)
    }

    static func isValidHost(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, let last = bytes.last, bytes.count <= 253 else { return false }
        let edges: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: "-")]
        guard !edges.contains(first), !edges.contains(last) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || edges.contains(byte)
        }
    }
}
#endif
