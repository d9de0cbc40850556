#if WebKitGTK
/// What a `decide-policy` signal asks about (WebKit's `WebKitPolicyDecisionType` plus details).
public struct GTKPolicyRequest: Sendable, Equatable {
    /// The kind of decision.
    public enum Kind: Sendable, Equatable {
        /// `WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION`: a navigation in this view (any frame).
        case navigation
        /// `WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION`: a navigation that wants a new window.
        case newWindow
        /// `WEBKIT_POLICY_DECISION_TYPE_RESPONSE`: a response arrived; decide whether to show it.
        case response
    }

    /// Why a navigation happens (`WebKitNavigationType`).
    public enum NavigationType: Sendable, Equatable {
        /// `WEBKIT_NAVIGATION_TYPE_LINK_CLICKED`: a link was activated.
        case linkClicked
        /// `WEBKIT_NAVIGATION_TYPE_FORM_SUBMITTED`: a form was submitted.
        case formSubmitted
        /// `WEBKIT_NAVIGATION_TYPE_BACK_FORWARD`: back/forward history navigation.
        case backForward
        /// `WEBKIT_NAVIGATION_TYPE_RELOAD`: a reload.
        case reload
        /// `WEBKIT_NAVIGATION_TYPE_FORM_RESUBMITTED`: a form was submitted again (e.g. on reload).
        case formResubmitted
        /// `WEBKIT_NAVIGATION_TYPE_OTHER`: anything else (scripted or API loads, iframes).
        case other
    }

    /// The kind of decision.
    public let kind: Kind
    /// The request URI (navigation kinds) or the response URI (``Kind/response``).
    public let uri: String
    /// Navigation kinds: why it happens; nil for responses.
    public let navigationType: NavigationType?
    /// Navigation kinds: true for the hop that follows a server redirect.
    public let isRedirect: Bool
    /// Navigation kinds: true when a user gesture started it.
    public let isUserGesture: Bool
    /// Responses: the HTTP status code (0 for non-HTTP); nil for navigations.
    public let statusCode: Int?
    /// Responses: the MIME type, when known.
    public let mimeType: String?
    /// Responses: true for the main frame's main resource, false for subframes; nil for navigations
    /// (WebKitGTK's navigation action has no main-frame flag).
    public let isMainFrame: Bool?
    /// Responses: the HTTP response headers in order. WebKit strips `Set-Cookie` (checked with
    /// WebKitGTK 2.50): read cookies through ``GTKCookieStore`` instead.
    public let headers: [GTKHTTPHeader]

    /// Creates a request value (for tests and adapters).
    public init(
        kind: Kind, uri: String, navigationType: NavigationType? = nil, isRedirect: Bool = false,
        isUserGesture: Bool = false, statusCode: Int? = nil, mimeType: String? = nil,
        isMainFrame: Bool? = nil, headers: [GTKHTTPHeader] = []
    ) {
        self.kind = kind
        self.uri = uri
        self.navigationType = navigationType
        self.isRedirect = isRedirect
        self.isUserGesture = isUserGesture
        self.statusCode = statusCode
        self.mimeType = mimeType
        self.isMainFrame = isMainFrame
        self.headers = headers
    }

    /// The values of every header named `name` (ASCII case-insensitive, RFC 9110 section 5.1).
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}
#endif
