#if canImport(WebKit)
public import WebKit

extension CookieSync {
    /// Attaches cookie sync to a web view: a sync between `jar` and the cookie store of
    /// `webView`'s website data store (`webView.configuration.websiteDataStore.httpCookieStore`,
    /// wrapped in a ``WebKitCookieStore``).
    ///
    /// The router (`WebViewBridge`) knows nothing of cookies; the app calls this next to
    /// attaching the bridge, before the first load:
    ///
    /// ```swift
    /// bridge = try WebViewBridge.attach(router: router, to: webView)
    /// try await CookieSync(jar: jar, webView: webView).pushJarToStore()
    /// webView.load(request)
    /// ```
    ///
    /// Every web view of one website data store shares its cookies, so one sync per data store
    /// is enough. Runs on the main actor (WebKit's store is main-actor isolated).
    /// - Parameters:
    ///   - jar: the app's jar.
    ///   - webView: the web view whose data store's cookies are synced.
    ///   - timeout: the limit of each wait on WebKit's store, in seconds (``WebKitCookieStore/timeout``);
    ///     `nil` waits without a limit.
    @MainActor
    public init(jar: CookieJar, webView: WKWebView, timeout: Double? = WebKitCookieStore.defaultTimeout) {
        self.init(jar: jar, store: WebKitCookieStore(webView.configuration.websiteDataStore, timeout: timeout))
    }
}
#endif
