import BridgeKit

/// What the `document.cookie` script for one page assigns, and what it leaves out.
///
/// Made by ``DocumentCookieScript/plan(for:pageURL:now:encoding:)`` or
/// ``CookieJar/documentCookiePlan(for:)``. Log or otherwise handle ``omitted``: those cookies
/// reach the page only through the engine's store or the `Cookie` header.
public struct DocumentCookiePlan: Sendable, Hashable {
    /// The strings the script assigns to `document.cookie`, one cookie each, in `Cookie` header
    /// order (RFC 6265 §5.4 step 2).
    public var assignments: [String]
    /// The cookies for this page that a script cannot express, in the same order; never
    /// truncated into the script.
    public var omitted: [DocumentCookieOmission]

    /// The scheme of the page the plan is for (`"http"` or `"https"`; empty when the page
    /// cannot use cookies). The script assigns nothing in a document of another scheme, but for
    /// an `https` document of an `http` plan (the start page redirected to `https`).
    public var pageScheme: String
    /// The host of the page the plan is for, canonical (lowercase; an IPv6 address without
    /// brackets). The script assigns nothing in a document of another host.
    public var pageHost: String

    /// Creates a plan for the page at `pageScheme`://`pageHost`.
    public init(assignments: [String], omitted: [DocumentCookieOmission], pageScheme: String, pageHost: String) {
        self.assignments = assignments
        self.omitted = omitted
        self.pageScheme = pageScheme
        self.pageHost = pageHost
    }

    /// The script: ``PageFunction/assignCookiesOnPage`` called with ``pageScheme``,
    /// ``pageHost`` and ``assignments`` as JSON data, built by ``PageScript`` (embedded by
    /// ``JavaScriptEmbedding``), so no name or value can end the script (field case R29).
    ///
    /// It assigns only in a document of the plan's scheme and host: as a document-start user
    /// script it runs in every main-frame document the web view shows, and another site's
    /// document must not be given the app's cookies (attack 14).
    /// - Throws: `EncodingError` is declared by ``PageScript`` but cannot occur for strings.
    public func script() throws -> String {
        try PageScript.build(
            calling: .assignCookiesOnPage,
            encoding: ScriptArguments(scheme: pageScheme, host: pageHost, cookies: assignments))
    }

    /// What ``PageFunction/assignCookiesOnPage`` takes.
    private struct ScriptArguments: Encodable {
        let scheme: String
        let host: String
        let cookies: [String]
    }
}
