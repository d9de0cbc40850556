#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

extension CookieJar {
    /// Stores the `Set-Cookie` headers of a response ("log in once": call it from the
    /// navigation delegate's response decision, with the `HTTPURLResponse`).
    ///
    /// Foundation joins several `Set-Cookie` fields into one comma-separated value; it is
    /// split again where a new cookie can start, without breaking `Expires` dates or quoted
    /// values (docs/cookies.md, "Folded headers"). A value that itself holds `, name=` cannot be
    /// told from two cookies there: where the fields are at hand one by one, pass them to
    /// ``capture(setCookieHeaders:from:)`` instead.
    /// The header name is matched case-insensitively (Linux Foundation's own
    /// `HTTPCookie.cookies(withResponseHeaderFields:for:)` does not, reference Part 2.2).
    ///
    /// - Parameter response: the response; its `url` scopes the cookies.
    /// - Returns: the refused cookies and why (empty when the response has no URL or no
    ///   `Set-Cookie`).
    @discardableResult
    public func capture(response: HTTPURLResponse) -> [CookieRejection] {
        guard let url = response.url, let value = response.value(forHTTPHeaderField: "Set-Cookie") else { return [] }
        return store(SetCookieParser.splitFolded(value), from: url)
    }

    /// Sets `request`'s `Cookie` header field to the jar's header for its URL, or removes the
    /// field when no cookie applies. Call it for the first request and again for every
    /// redirect (`URLSessionTaskDelegate`'s `willPerformHTTPRedirection`): the header is a
    /// function of the URL.
    ///
    /// - Parameter request: the request to change; nothing happens when it has no URL.
    public func applyCookieHeader(to request: inout URLRequest) {
        guard let url = request.url else { return }
        request.setValue(cookieHeader(for: url), forHTTPHeaderField: "Cookie")
    }
}
