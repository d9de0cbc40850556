extension WebBridgeDocumentNotice {
    /// The name of the script message handler ``source`` posts its notice to (its default
    /// channel, `"webbridgeDocument"`), registered by a host in the notice's own script world.
    ///
    /// One place for the name: the `WKWebView` adapter and the WebKitGTK host both register it,
    /// and a test checks that `js/webbridge-document.js` posts to it.
    public static let handlerName = "webbridgeDocument"
}
