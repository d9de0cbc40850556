#if WebKitGTK
public import BridgeKit

extension GTKWebViewConfiguration {
    /// A configuration whose user agent is WebKit's own with `token` appended
    /// (`webkit_settings_set_user_agent_with_application_details`), set when the view is created,
    /// so the very first request carries it (field cases R45, R47).
    /// - Parameters:
    ///   - token: the application token, for example `ApplicationToken(name: "ShopApp", version: "2.1")`.
    ///     An empty token leaves the user agent unchanged.
    ///   - dataStore: the cookie and cache store; default ephemeral.
    public static func appendingToUserAgent(_ token: ApplicationToken, dataStore: DataStore = .ephemeral)
        -> GTKWebViewConfiguration
    {
        GTKWebViewConfiguration(
            dataStore: dataStore,
            applicationName: token.isEmpty ? nil : token.name,
            applicationVersion: token.isEmpty ? nil : token.version)
    }
}
#endif
