extension MessageSource {
    /// Builds the source of a script message from what the engine reports about the sending
    /// frame — on Apple platforms `WKScriptMessage.frameInfo`: `securityOrigin.protocol`,
    /// `.host`, `.port` and `isMainFrame` (iOS 9 / macOS 10.11). Never from the message body.
    ///
    /// - `WKFrameInfo.securityOrigin` is the frame's document origin, not its URL's (WebKit builds
    ///   it from the document's `SecurityOrigin`). For an opaque origin (CSP `sandbox`, a
    ///   sandboxed iframe without `allow-same-origin`, `data:`) WebKit reports an empty protocol
    ///   and host. An empty protocol or host (opaque; or `file:`, which has no host) gives a `nil`
    ///   ``origin``: **no origin**, which no origin pattern and not `.anyOrigin` allows; only a
    ///   policy with ``AccessPolicy/allowsOpaqueOrigins`` admits it (SECURITY.md, issue 20).
    /// - The protocol may come with or without its `:`; scheme and host are lowercased; IPv6
    ///   brackets are removed (``SecurityOrigin`` stores `::1`).
    /// - Port 0 or less (WebKit's "default port") and the scheme's default port are stored as
    ///   `nil`, so `https://a.example` and `https://a.example:443` are the same origin.
    ///
    /// - Parameters:
    ///   - frameProtocol: the origin's scheme, for example `"https"`.
    ///   - host: the origin's host.
    ///   - port: the origin's port; 0 for the default.
    ///   - isMainFrame: whether the sending frame is the main frame.
    public init(frameProtocol: String, host: String, port: Int, isMainFrame: Bool) {
        var scheme = Substring(frameProtocol)
        if scheme.hasSuffix(":") { scheme = scheme.dropLast() }
        var bareHost = Substring(host)
        if bareHost.hasPrefix("["), bareHost.hasSuffix("]"), bareHost.count >= 2 {
            bareHost = bareHost.dropFirst().dropLast()
        }
        let origin: SecurityOrigin? =
            if scheme.isEmpty || bareHost.isEmpty {
                nil
            } else {
                SecurityOrigin(scheme: String(scheme), host: String(bareHost), port: port > 0 ? port : nil)
            }
        self.init(origin: origin, isMainFrame: isMainFrame)
    }
}
