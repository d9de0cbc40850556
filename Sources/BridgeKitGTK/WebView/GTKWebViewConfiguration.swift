#if WebKitGTK
/// How a ``GTKWebView`` is created. Everything here is applied before the view can load anything,
/// so the very first request already carries the user agent (field case R47).
public struct GTKWebViewConfiguration: Sendable, Equatable {
    /// Where cookies, caches and storage live.
    public enum DataStore: Sendable, Equatable {
        /// A fresh in-memory store for this view only (`webkit_web_context_new_ephemeral`);
        /// gone when the view closes. Costs one WebKit network process per view.
        case ephemeral
        /// WebKit's default, persistent web context (`webkit_web_context_get_default`), shared by
        /// every view that uses it (XDG data and cache folders).
        case shared
    }

    /// Where cookies and storage live; default ``DataStore/ephemeral``.
    public var dataStore: DataStore
    /// Application name appended to WebKit's user agent (`webkit_settings_set_user_agent_with_application_details`),
    /// e.g. "ShopApp"; nil keeps WebKit's user agent unchanged. The engine's tokens stay (field case R45).
    public var applicationName: String?
    /// Application version appended after the name ("ShopApp/2.1"); ignored without a name. Without
    /// a version the name alone is appended (WebKitGTK itself would add its own version).
    public var applicationVersion: String?
    /// Whether the web inspector is available (`enable-developer-extras`); default false.
    public var developerExtrasEnabled: Bool
    /// Whether the page's `console` messages, uncaught errors, unhandled promise rejections and
    /// failed subresource loads (every frame's) are written to the app's standard output, one line
    /// each: `CONSOLE LOG hello`, `CONSOLE ERROR Uncaught TypeError: … (app.js:12)`; default false.
    /// For a headless app or a test while you develop: the page's log without the inspector.
    /// BridgeKitGTK writes the lines itself, from a page-world user script that wraps `console` at
    /// document start and a forwarder and message handler (`bridgekitConsole`) in an isolated world
    /// of their own, which page scripts cannot post to: at most 500 messages a second per frame,
    /// what the page wrote made terminal-safe and cut at 8,192 characters;
    /// `GTKWebView/removeAllUserScripts()` removes the scripts too. (WebKit's
    /// own `enable-write-console-messages-to-stdout` goes to the systemd journal on a WebKitGTK
    /// built with journald, Debian's, and is not used.)
    public var writesConsoleToStandardOutput: Bool
    /// Size of the offscreen window in pixels (width, height); default 1024 x 768.
    public var windowSize: (width: Int, height: Int)
    /// A directory of the app's files served to this view under a URI scheme of its own (a page of
    /// several files with an origin such as `app://bundle`; see ``GTKAssetURIScheme``); default nil.
    /// The scheme is registered on the view's web context when the view is created, so it is there
    /// before the first load.
    public var assetScheme: GTKAssetURIScheme?

    /// Creates a configuration.
    /// - Parameters:
    ///   - dataStore: see ``dataStore``.
    ///   - applicationName: see ``applicationName``.
    ///   - applicationVersion: see ``applicationVersion``.
    ///   - developerExtrasEnabled: see ``developerExtrasEnabled``.
    ///   - windowSize: see ``windowSize`` (pixels).
    ///   - assetScheme: see ``assetScheme``.
    ///   - writesConsoleToStandardOutput: see ``writesConsoleToStandardOutput``.
    public init(
        dataStore: DataStore = .ephemeral, applicationName: String? = nil, applicationVersion: String? = nil,
        developerExtrasEnabled: Bool = false, windowSize: (width: Int, height: Int) = (1024, 768),
        assetScheme: GTKAssetURIScheme? = nil, writesConsoleToStandardOutput: Bool = false
    ) {
        self.dataStore = dataStore
        self.applicationName = applicationName
        self.applicationVersion = applicationVersion
        self.developerExtrasEnabled = developerExtrasEnabled
        self.writesConsoleToStandardOutput = writesConsoleToStandardOutput
        self.windowSize = windowSize
        self.assetScheme = assetScheme
    }

    /// What the view appends to WebKit's user agent: the application name and its version, nil
    /// when the version is empty or missing (the name is then appended alone); nil without a name.
    /// The one rule behind both the check (`GTKWebView.init`) and the setting (`GTKWebViewCore`).
    var appendedProduct: (name: String, version: String?)? {
        guard let name = applicationName, !name.isEmpty else { return nil }
        return (name, applicationVersion.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Field-by-field equality (written out because ``windowSize`` is a tuple).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.dataStore == rhs.dataStore && lhs.applicationName == rhs.applicationName
            && lhs.applicationVersion == rhs.applicationVersion
            && lhs.developerExtrasEnabled == rhs.developerExtrasEnabled
            && lhs.writesConsoleToStandardOutput == rhs.writesConsoleToStandardOutput
            && lhs.windowSize == rhs.windowSize && lhs.assetScheme == rhs.assetScheme
    }
}
#endif
