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
/// What is served and refused (200, 400, 403, 404, 405) is BridgeKit's `AssetFolder`, the rules
/// shared with the Apple handler (`WebKitAssetSchemeHandler`): only regular files inside the
/// folder, streamed, with a `Content-Type` from the extension; `..` in any spelling, links out of
/// the folder, hidden names, directories, other methods, and other origins' `fetch` are refused. On
/// WebKitGTK, a request of a web view that does not serve this scheme (another view of a shared web
/// context) is also 404.
///
/// Thread: a value, usable anywhere; requests are answered on WebKitGTK's thread and files are
/// opened off it.
public struct GTKAssetURIScheme: Sendable, Hashable {
    /// The folder, scheme and host served (the rules shared with Apple platforms).
    public let folder: AssetFolder

    /// The directory served, with symbolic links in its own path resolved (files inside it may not
    /// lead out of this path).
    public var directory: URL { folder.directory }
    /// The URI scheme, for example `"app"`.
    public var scheme: String { folder.scheme }
    /// The host of every URI served, for example `"bundle"`; requests for another host are 404.
    public var host: String { folder.host }

    /// Checks and creates the scheme.
    /// - Parameters:
    ///   - directory: a directory the app ships (its file URL); read at every request, so files
    ///     changed later are served as they are then.
    ///   - scheme: the URI scheme; default `"app"`. Lowercase, not one WebKit or BridgeKit uses.
    ///   - host: the host part of the URIs; default `"bundle"`. With `scheme`, it makes the pages'
    ///     origin (``origin``, `app://bundle` by default).
    /// - Throws: ``GTKAssetURISchemeError`` (BridgeKit's `AssetFolderError`): `invalidScheme`,
    ///   `invalidHost` or `notADirectory`.
    public init(directory: URL, scheme: String = "app", host: String = "bundle") throws(GTKAssetURISchemeError) {
        folder = try AssetFolder(directory: directory, scheme: scheme, host: host)
    }

    /// Serves `folder` (already checked).
    /// - Parameter folder: the folder, scheme and host.
    public init(folder: AssetFolder) {
        self.folder = folder
    }

    /// The origin of the pages served, `scheme://host` (for example `app://bundle`): allow it in
    /// the router's `AccessPolicy` (`OriginPattern(origin: assets.origin)`, or the text
    /// `"app://bundle"` in `AccessPolicy.checkedOrigins`).
    public var origin: SecurityOrigin { folder.origin }

    /// The URI of the file at `path` inside ``directory``, to load (`GTKWebView.load(uri:)`) or
    /// link to, for example `uri(for: "index.html")` is `app://bundle/index.html`. Each component of
    /// `path` is percent-encoded; a leading `/` is ignored.
    /// - Parameter path: a relative path with `/` between components.
    public func uri(for path: String) -> String { folder.uri(for: path) }

    /// The path of the root directory, as the request handler compares paths (no trailing `/`).
    var rootPath: String { folder.rootPath }
}
#endif
