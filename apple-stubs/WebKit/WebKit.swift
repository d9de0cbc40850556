// Stub module `WebKit` (iOS with `-D APPLE_STUBS_IOS`, macOS with `-D APPLE_STUBS_MACOS`):
// exactly the WebKit declarations that BridgeKit's sources, the stock tasks and the Swift code
// blocks of docs/ use, plus the overloads next to them. Type-checking only: nothing here is ever
// run. Signatures follow the iOS 18 / macOS 15 SDK headers (Xcode 16) as Swift imports them:
//
// - Isolation: WebKit commit 13873b2f (webkit.org/b/273798, 278930@main, 2024-05-17) marks these
//   classes and protocols `WK_SWIFT_UI_ACTOR` (= `NS_SWIFT_UI_ACTOR`, WKFoundation.h), imported
//   as `@MainActor`; completion blocks tagged `WK_SWIFT_UI_ACTOR` import as `@MainActor @Sendable`.
// - Nullability: from the headers' `nullable` / `NS_ASSUME_NONNULL` regions.
// - Availability: from the headers' `WK_API_AVAILABLE(macos(…), ios(…))`.
//
// The Swift overlay (WebKitSwiftOverlay.swift) is in Overlay.swift, in both generations.
// ../README.md: provenance conventions and how to refresh these from the real SDK.
@_exported import FoundationAppleOnly
#if APPLE_STUBS_IOS
    @_exported import UIKit
    /// The platform's view class: `UIView` on iOS, `NSView` on macOS.
    public typealias WKPlatformView = UIView
#else
    @_exported import AppKit
    /// The platform's view class: `UIView` on iOS, `NSView` on macOS.
    public typealias WKPlatformView = NSView
#endif

// MARK: WKContentWorld.h

/// SDK: `@MainActor open class WKContentWorld: NSObject` (WKContentWorld.h; iOS 14, macOS 11).
@available(iOS 14.0, macOS 11.0, *)
@MainActor
open class WKContentWorld: NSObject {
    /// SDK: `open class var page: WKContentWorld { get }`.
    open class var page: WKContentWorld { WKContentWorld() }
    /// SDK: `open class var defaultClient: WKContentWorld { get }`.
    open class var defaultClient: WKContentWorld { WKContentWorld() }
    /// SDK: `open class func world(name: String) -> WKContentWorld`.
    open class func world(name: String) -> WKContentWorld { WKContentWorld() }
    /// SDK: `open var name: String? { get }`.
    open var name: String? { nil }
}

// MARK: WKUserScript.h

/// SDK: `public enum WKUserScriptInjectionTime: Int, Sendable` (WKUserScript.h; iOS 8, macOS 10.10).
public enum WKUserScriptInjectionTime: Int, Sendable {
    case atDocumentStart = 0, atDocumentEnd
}

/// SDK: `@MainActor open class WKUserScript: NSObject, NSCopying` (WKUserScript.h; iOS 8, macOS 10.10).
@MainActor
open class WKUserScript: NSObject {
    /// SDK: `open var source: String { get }` (`NSString *source`, copy).
    open var source: String { "" }
    /// SDK: `open var injectionTime: WKUserScriptInjectionTime { get }`.
    open var injectionTime: WKUserScriptInjectionTime { .atDocumentStart }
    /// SDK: `open var isForMainFrameOnly: Bool { get }`.
    open var isForMainFrameOnly: Bool { true }
    /// SDK: `public init(source: String, injectionTime: WKUserScriptInjectionTime,
    /// forMainFrameOnly: Bool)` (iOS 8, macOS 10.10): the page world.
    public init(source: String, injectionTime: WKUserScriptInjectionTime, forMainFrameOnly: Bool) { super.init() }
    /// SDK: `public init(source: String, injectionTime: WKUserScriptInjectionTime,
    /// forMainFrameOnly: Bool, in contentWorld: WKContentWorld)` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    public init(source: String, injectionTime: WKUserScriptInjectionTime, forMainFrameOnly: Bool, in contentWorld: WKContentWorld) {
        super.init()
    }
}

// MARK: WKScriptMessage.h, WKFrameInfo.h, WKSecurityOrigin.h

/// SDK: `@MainActor open class WKScriptMessage: NSObject` (WKScriptMessage.h; iOS 8, macOS 10.10).
@MainActor
open class WKScriptMessage: NSObject {
    /// SDK: `open var body: Any { get }` (NSNumber, NSString, NSDate, NSArray, NSDictionary, NSNull).
    open var body: Any { NSNull() }
    /// SDK: `weak open var webView: WKWebView? { get }` (iOS 8, macOS 10.10).
    open var webView: WKWebView? { nil }
    /// SDK: `@NSCopying open var frameInfo: WKFrameInfo { get }` (iOS 8, macOS 10.10).
    open var frameInfo: WKFrameInfo { WKFrameInfo() }
    /// SDK: `open var name: String { get }`.
    open var name: String { "" }
    /// SDK: `open var world: WKContentWorld { get }` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    open var world: WKContentWorld { WKContentWorld() }
}

/// SDK: `@MainActor open class WKFrameInfo: NSObject, NSCopying` (WKFrameInfo.h; iOS 8, macOS 10.10).
@MainActor
open class WKFrameInfo: NSObject {
    /// SDK: `open var isMainFrame: Bool { get }`.
    open var isMainFrame: Bool { true }
    /// SDK: `open var request: URLRequest { get }`.
    open var request: URLRequest { URLRequest(url: URL(fileURLWithPath: "/")) }
    /// SDK: `open var securityOrigin: WKSecurityOrigin { get }` (iOS 9, macOS 10.11).
    @available(iOS 9.0, macOS 10.11, *)
    open var securityOrigin: WKSecurityOrigin { WKSecurityOrigin() }
    /// SDK: `weak open var webView: WKWebView? { get }` (iOS 11, macOS 10.13).
    @available(iOS 11.0, macOS 10.13, *)
    open var webView: WKWebView? { nil }
}

/// SDK: `@MainActor open class WKSecurityOrigin: NSObject` (WKSecurityOrigin.h; iOS 9, macOS 10.11).
@available(iOS 9.0, macOS 10.11, *)
@MainActor
open class WKSecurityOrigin: NSObject {
    /// SDK: ``open var `protocol`: String { get }``.
    open var `protocol`: String { "" }
    /// SDK: `open var host: String { get }`.
    open var host: String { "" }
    /// SDK: `open var port: Int { get }` (0: the scheme's default port).
    open var port: Int { 0 }
}

// MARK: WKScriptMessageHandler.h, WKScriptMessageHandlerWithReply.h

/// SDK: `@MainActor public protocol WKScriptMessageHandler: NSObjectProtocol`
/// (WKScriptMessageHandler.h; iOS 8, macOS 10.10).
@MainActor
public protocol WKScriptMessageHandler: NSObjectProtocol {
    /// SDK: `func userContentController(_ userContentController: WKUserContentController,
    /// didReceive message: WKScriptMessage)` (required).
    func userContentController(_ userContentController: WKUserContentController, didReceive message: WKScriptMessage)
}

/// SDK: `@MainActor public protocol WKScriptMessageHandlerWithReply: NSObjectProtocol`
/// (WKScriptMessageHandlerWithReply.h; iOS 14, macOS 11). The header's one requirement,
/// `-userContentController:didReceiveScriptMessage:replyHandler:` (`WK_SWIFT_ASYNC(3)`), imports
/// twice: this completion form and an `async -> (Any?, String?)` form; a conformer implements
/// exactly one (both map to the same selector). Linux has no `@objc` protocols, so the stub
/// requires the completion form, the one BridgeKit implements.
@available(iOS 14.0, macOS 11.0, *)
@MainActor
public protocol WKScriptMessageHandlerWithReply: NSObjectProtocol {
    /// SDK: `func userContentController(_ userContentController: WKUserContentController,
    /// didReceive message: WKScriptMessage, replyHandler: @escaping @MainActor @Sendable (Any?,
    /// String?) -> Void)`. The reply block is `WK_SWIFT_UI_ACTOR`; call it at most once.
    func userContentController(_ userContentController: WKUserContentController, didReceive message: WKScriptMessage,
                               replyHandler: @escaping @MainActor @Sendable (Any?, String?) -> Void)
}

// MARK: WKUserContentController.h

/// SDK: `@MainActor open class WKUserContentController: NSObject, NSSecureCoding`
/// (WKUserContentController.h; iOS 8, macOS 10.10).
@MainActor
open class WKUserContentController: NSObject {
    /// SDK: `open var userScripts: [WKUserScript] { get }`.
    open var userScripts: [WKUserScript] { [] }
    /// SDK: `open func addUserScript(_ userScript: WKUserScript)`.
    open func addUserScript(_ userScript: WKUserScript) {}
    /// SDK: `open func removeAllUserScripts()`.
    open func removeAllUserScripts() {}
    /// SDK: `open func removeAllUserScripts(from contentWorld: WKContentWorld)` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    open func removeAllUserScripts(from contentWorld: WKContentWorld) {}
    /// SDK: `open func add(_ scriptMessageHandler: any WKScriptMessageHandler, name: String)`.
    open func add(_ scriptMessageHandler: any WKScriptMessageHandler, name: String) {}
    /// SDK: `open func add(_ scriptMessageHandler: any WKScriptMessageHandler, contentWorld world:
    /// WKContentWorld, name: String)` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    open func add(_ scriptMessageHandler: any WKScriptMessageHandler, contentWorld world: WKContentWorld, name: String) {}
    /// SDK: `open func addScriptMessageHandler(_ scriptMessageHandlerWithReply: any
    /// WKScriptMessageHandlerWithReply, contentWorld: WKContentWorld, name: String)` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    open func addScriptMessageHandler(_ scriptMessageHandlerWithReply: any WKScriptMessageHandlerWithReply,
                                      contentWorld: WKContentWorld, name: String) {}
    /// SDK: `open func removeScriptMessageHandler(forName name: String)` (the page world).
    open func removeScriptMessageHandler(forName name: String) {}
    /// SDK: `open func removeScriptMessageHandler(forName name: String, contentWorld: WKContentWorld)` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    open func removeScriptMessageHandler(forName name: String, contentWorld: WKContentWorld) {}
    /// SDK: `open func removeAllScriptMessageHandlers(from contentWorld: WKContentWorld)` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    open func removeAllScriptMessageHandlers(from contentWorld: WKContentWorld) {}
    /// SDK: `open func removeAllScriptMessageHandlers()` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    open func removeAllScriptMessageHandlers() {}
}

// MARK: WKWebsiteDataStore.h, WKHTTPCookieStore.h

/// SDK: `@MainActor open class WKWebsiteDataStore: NSObject, NSSecureCoding`
/// (WKWebsiteDataStore.h; iOS 9, macOS 10.11).
@available(iOS 9.0, macOS 10.11, *)
@MainActor
open class WKWebsiteDataStore: NSObject {
    /// SDK: `open class func `default`() -> WKWebsiteDataStore`.
    open class func `default`() -> WKWebsiteDataStore { WKWebsiteDataStore() }
    /// SDK: `open class func nonPersistent() -> WKWebsiteDataStore`.
    open class func nonPersistent() -> WKWebsiteDataStore { WKWebsiteDataStore() }
    /// SDK: `open var isPersistent: Bool { get }`.
    open var isPersistent: Bool { true }
    /// SDK: `open var httpCookieStore: WKHTTPCookieStore { get }` (iOS 11, macOS 10.13).
    @available(iOS 11.0, macOS 10.13, *)
    open var httpCookieStore: WKHTTPCookieStore { WKHTTPCookieStore() }
}

/// SDK: `@MainActor open class WKHTTPCookieStore: NSObject` (WKHTTPCookieStore.h; iOS 11,
/// macOS 10.13). Completion blocks are `WK_SWIFT_UI_ACTOR`: `@MainActor @Sendable`.
@available(iOS 11.0, macOS 10.13, *)
@MainActor
open class WKHTTPCookieStore: NSObject {
    /// SDK: `open func getAllCookies(_ completionHandler: @escaping @MainActor @Sendable ([HTTPCookie]) -> Void)`.
    open func getAllCookies(_ completionHandler: @escaping @MainActor @Sendable ([HTTPCookie]) -> Void) {}
    /// SDK (async import of the above): `open func allCookies() async -> [HTTPCookie]`.
    open func allCookies() async -> [HTTPCookie] { [] }
    /// SDK: `open func setCookie(_ cookie: HTTPCookie, completionHandler: (@MainActor @Sendable () -> Void)? = nil)`.
    open func setCookie(_ cookie: HTTPCookie, completionHandler: (@MainActor @Sendable () -> Void)? = nil) {}
    /// SDK (async import): `open func setCookie(_ cookie: HTTPCookie) async`.
    open func setCookie(_ cookie: HTTPCookie) async {}
    /// SDK: `open func delete(_ cookie: HTTPCookie, completionHandler: (@MainActor @Sendable () -> Void)? = nil)`.
    open func delete(_ cookie: HTTPCookie, completionHandler: (@MainActor @Sendable () -> Void)? = nil) {}
    /// SDK (`WK_SWIFT_ASYNC_NAME(deleteCookie(_:))`): `open func deleteCookie(_ cookie: HTTPCookie) async`.
    open func deleteCookie(_ cookie: HTTPCookie) async {}
    /// SDK: `open func setCookies(_ cookies: [HTTPCookie], completionHandler: (@MainActor
    /// @Sendable () -> Void)? = nil)` (iOS 26, macOS 26): newer than BridgeKit's minimum.
    @available(iOS 26.0, macOS 26.0, *)
    open func setCookies(_ cookies: [HTTPCookie], completionHandler: (@MainActor @Sendable () -> Void)? = nil) {}
}

// MARK: WKWebViewConfiguration.h

/// SDK: `@MainActor open class WKWebViewConfiguration: NSObject, NSSecureCoding, NSCopying`
/// (WKWebViewConfiguration.h; iOS 8, macOS 10.10).
@MainActor
open class WKWebViewConfiguration: NSObject {
    /// SDK: `open var userContentController: WKUserContentController`.
    open var userContentController = WKUserContentController()
    /// SDK: `open var websiteDataStore: WKWebsiteDataStore` (iOS 9, macOS 10.11).
    @available(iOS 9.0, macOS 10.11, *)
    open var websiteDataStore = WKWebsiteDataStore()
    /// SDK: `open var applicationNameForUserAgent: String?` (iOS 9, macOS 10.11).
    @available(iOS 9.0, macOS 10.11, *)
    open var applicationNameForUserAgent: String?
    /// SDK: `open var limitsNavigationsToAppBoundDomains: Bool` (iOS 14, macOS 11).
    @available(iOS 14.0, macOS 11.0, *)
    open var limitsNavigationsToAppBoundDomains: Bool = false
    /// SDK: `open func setURLSchemeHandler(_ urlSchemeHandler: (any WKURLSchemeHandler)?,
    /// forURLScheme urlScheme: String)` (iOS 11, macOS 10.13).
    @available(iOS 11.0, macOS 10.13, *)
    open func setURLSchemeHandler(_ urlSchemeHandler: (any WKURLSchemeHandler)?, forURLScheme urlScheme: String) {}
    /// SDK: `open func urlSchemeHandler(forURLScheme urlScheme: String) -> (any WKURLSchemeHandler)?`
    /// (iOS 11, macOS 10.13).
    @available(iOS 11.0, macOS 10.13, *)
    open func urlSchemeHandler(forURLScheme urlScheme: String) -> (any WKURLSchemeHandler)? { nil }
}

// MARK: WKURLSchemeHandler.h, WKURLSchemeTask.h

/// SDK: `public protocol WKURLSchemeTask: NSObjectProtocol` (WKURLSchemeTask.h; iOS 11, macOS
/// 10.13). Not `WK_SWIFT_UI_ACTOR`, unlike `WKURLSchemeHandler`, and not `Sendable`: the handler
/// answers it from the main actor, where WebKit gave it. Each answer method raises an
/// Objective-C exception when called after the task was stopped or finished.
@available(iOS 11.0, macOS 10.13, *)
public protocol WKURLSchemeTask: NSObjectProtocol {
    /// SDK: `var request: URLRequest { get }`.
    var request: URLRequest { get }
    /// SDK: `func didReceive(_ response: URLResponse)`.
    func didReceive(_ response: URLResponse)
    /// SDK: `func didReceive(_ data: Data)`.
    func didReceive(_ data: Data)
    /// SDK: `func didFinish()`.
    func didFinish()
    /// SDK: `func didFailWithError(_ error: any Error)`.
    func didFailWithError(_ error: any Error)
}

/// SDK: `@MainActor public protocol WKURLSchemeHandler: NSObjectProtocol` (WKURLSchemeHandler.h;
/// iOS 11, macOS 10.13; `WK_SWIFT_UI_ACTOR`).
@available(iOS 11.0, macOS 10.13, *)
@MainActor
public protocol WKURLSchemeHandler: NSObjectProtocol {
    /// SDK: `func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask)`.
    func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask)
    /// SDK: `func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask)`.
    func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask)
}

// MARK: WKNavigation.h, WKNavigationResponse.h, WKNavigationDelegate.h, WKUIDelegate.h

/// SDK: `@MainActor open class WKNavigation: NSObject` (WKNavigation.h; iOS 8, macOS 10.10).
@MainActor
open class WKNavigation: NSObject {}

/// SDK: `@MainActor open class WKNavigationResponse: NSObject` (WKNavigationResponse.h; iOS 8, macOS 10.10).
@MainActor
open class WKNavigationResponse: NSObject {
    /// SDK: `open var isForMainFrame: Bool { get }`.
    open var isForMainFrame: Bool { true }
    /// SDK: `@NSCopying open var response: URLResponse { get }`.
    open var response: URLResponse {
        URLResponse(url: URL(fileURLWithPath: "/"), mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
    }
    /// SDK: `open var canShowMIMEType: Bool { get }`.
    open var canShowMIMEType: Bool { true }
}

/// SDK: `public enum WKNavigationResponsePolicy: Int, Sendable` (WKNavigationDelegate.h).
public enum WKNavigationResponsePolicy: Int, Sendable {
    case cancel = 0, allow
    /// SDK: iOS 14.5, macOS 11.3.
    @available(iOS 14.5, macOS 11.3, *)
    case download
}

/// SDK: `@MainActor public protocol WKNavigationDelegate: NSObjectProtocol`
/// (WKNavigationDelegate.h; iOS 8, macOS 10.10). Every method is `optional` in the SDK; Linux has
/// no `@objc` protocols, so the stub gives each a default implementation instead (a misspelt
/// method type-checks here, as a near miss only warns on Apple platforms).
@MainActor
public protocol WKNavigationDelegate: NSObjectProtocol {
    /// SDK: `optional func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!)`.
    func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!)
    /// SDK: `optional func webView(_ webView: WKWebView, decidePolicyFor navigationResponse:
    /// WKNavigationResponse, decisionHandler: @escaping @MainActor @Sendable
    /// (WKNavigationResponsePolicy) -> Void)`.
    func webView(_ webView: WKWebView, decidePolicyFor navigationResponse: WKNavigationResponse,
                 decisionHandler: @escaping @MainActor @Sendable (WKNavigationResponsePolicy) -> Void)
    /// SDK: `optional func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation:
    /// WKNavigation!, withError error: any Error)`.
    func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error)
    /// SDK: `optional func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error)`.
    func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error)
    /// SDK: `optional func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!)`.
    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!)
    /// SDK: `optional func webViewWebContentProcessDidTerminate(_ webView: WKWebView)` (iOS 9, macOS 10.11).
    func webViewWebContentProcessDidTerminate(_ webView: WKWebView)
}

extension WKNavigationDelegate {
    public func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {}
    public func webView(_ webView: WKWebView, decidePolicyFor navigationResponse: WKNavigationResponse,
                        decisionHandler: @escaping @MainActor @Sendable (WKNavigationResponsePolicy) -> Void) {}
    public func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error) {}
    public func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error) {}
    public func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {}
    public func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {}
}

/// SDK: `@MainActor public protocol WKUIDelegate: NSObjectProtocol` (WKUIDelegate.h; all optional).
@MainActor
public protocol WKUIDelegate: NSObjectProtocol {}

// MARK: WKWebView.h

/// SDK: `@MainActor open class WKWebView: UIView` on iOS, `NSView` on macOS (WKWebView.h; iOS 8,
/// macOS 10.10). `title`, `url`, `isLoading`, `estimatedProgress`, `canGoBack`, `canGoForward`
/// are documented KVO-compliant.
@MainActor
open class WKWebView: WKPlatformView {
    /// SDK: `public init(frame: CGRect, configuration: WKWebViewConfiguration)`.
    public init(frame: CGRect, configuration: WKWebViewConfiguration) { super.init(frame: frame) }
    /// SDK: `public required init?(coder: NSCoder)`.
    public required init?(coder: NSCoder) { super.init(coder: coder) }
    /// SDK: `@NSCopying open var configuration: WKWebViewConfiguration { get }` (a copy; its
    /// `userContentController` and `websiteDataStore` are the view's own).
    open var configuration: WKWebViewConfiguration { WKWebViewConfiguration() }
    /// SDK: `weak open var navigationDelegate: (any WKNavigationDelegate)?`.
    open weak var navigationDelegate: (any WKNavigationDelegate)?
    /// SDK: `weak open var uiDelegate: (any WKUIDelegate)?`.
    open weak var uiDelegate: (any WKUIDelegate)?
    /// SDK: `open var title: String? { get }` (KVO).
    open var title: String? { nil }
    /// SDK: `open var url: URL? { get }` (KVO).
    open var url: URL? { nil }
    /// SDK: `open var isLoading: Bool { get }` (KVO).
    open var isLoading: Bool { false }
    /// SDK: `open var estimatedProgress: Double { get }` (KVO; 0.0 to 1.0).
    open var estimatedProgress: Double { 0 }
    /// SDK: `open var canGoBack: Bool { get }` (KVO).
    open var canGoBack: Bool { false }
    /// SDK: `open var canGoForward: Bool { get }` (KVO).
    open var canGoForward: Bool { false }
    /// SDK: `open var customUserAgent: String?` (iOS 9, macOS 10.11).
    @available(iOS 9.0, macOS 10.11, *)
    open var customUserAgent: String?
    /// SDK: `open var isInspectable: Bool` (iOS 16.4, macOS 13.3): newer than BridgeKit's minimum.
    @available(iOS 16.4, macOS 13.3, *)
    open var isInspectable: Bool { get { false } set {} }
    /// SDK: `open class func handlesURLScheme(_ urlScheme: String) -> Bool` (iOS 11, macOS 10.13):
    /// whether WebKit handles the scheme itself (`setURLSchemeHandler` raises an exception for one).
    @available(iOS 11.0, macOS 10.13, *)
    open class func handlesURLScheme(_ urlScheme: String) -> Bool { false }
    /// SDK: `@discardableResult open func load(_ request: URLRequest) -> WKNavigation?`.
    @discardableResult
    open func load(_ request: URLRequest) -> WKNavigation? { nil }
    /// SDK: `@discardableResult open func loadHTMLString(_ string: String, baseURL: URL?) -> WKNavigation?`.
    @discardableResult
    open func loadHTMLString(_ string: String, baseURL: URL?) -> WKNavigation? { nil }
    /// SDK: `@discardableResult open func reload() -> WKNavigation?`.
    @discardableResult
    open func reload() -> WKNavigation? { nil }
    /// SDK: `@discardableResult open func goBack() -> WKNavigation?`.
    @discardableResult
    open func goBack() -> WKNavigation? { nil }
    /// SDK: `@discardableResult open func goForward() -> WKNavigation?`.
    @discardableResult
    open func goForward() -> WKNavigation? { nil }
    /// SDK: `open func stopLoading()`.
    open func stopLoading() {}
    /// SDK: `open func evaluateJavaScript(_ javaScriptString: String, completionHandler:
    /// (@MainActor @Sendable (Any?, (any Error)?) -> Void)? = nil)` (the block is
    /// `WK_SWIFT_UI_ACTOR`). Its `async` import is in Overlay.swift (its result type changed).
    open func evaluateJavaScript(_ javaScriptString: String, completionHandler: (@MainActor @Sendable (Any?, (any Error)?) -> Void)? = nil) {}
}
