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

    /// Creates a plan.
    public init(assignments: [String], omitted: [DocumentCookieOmission]) {
        self.assignments = assignments
        self.omitted = omitted
    }

    /// The script: ``PageFunction/assignCookies`` called with ``assignments`` as JSON data,
    /// built by ``PageScript`` (embedded by ``JavaScriptEmbedding``), so no name or value can
    /// end the script (field case R29).
    /// - Throws: `EncodingError` is declared by ``PageScript`` but cannot occur for strings.
    public func script() throws -> String {
        try PageScript.build(calling: .assignCookies, encoding: assignments)
    }
}
