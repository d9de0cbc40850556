import Foundation
import Testing

@testable import BridgeCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTPCookie conversion")
struct HTTPCookieConversionTests {
    @Test("Secure, HttpOnly, expiry, path and a host-only domain survive Foundation's HTTPCookie")
    func hostOnlyRoundTrip() throws {
        let cookie = Cookie(
            name: "sid", value: "abc", domain: "app.example", path: "/a", expires: utc(2031, 1, 1),
            isSecure: true, isHTTPOnly: true)
        let http = try cookie.makeHTTPCookie()
        #expect(http.domain == "app.example")
        #expect(http.isSecure)
        #expect(http.isHTTPOnly)
        #expect(http.expiresDate == utc(2031, 1, 1))
        #expect(http.path == "/a")
        #expect(Cookie(http) == cookie)
    }

    @Test("A domain cookie travels with a leading dot; a session cookie has no expiry; not-secure stays not secure")
    func domainAndSession() throws {
        let cookie = Cookie(name: "d", value: "1", domain: "example.com", isHostOnly: false)
        let http = try cookie.makeHTTPCookie()
        #expect(http.domain == ".example.com")
        #expect(http.expiresDate == nil)
        #expect(!http.isSecure)
        #expect(!http.isHTTPOnly)
        #expect(Cookie(http) == cookie)
        #expect(try Cookie(name: "d", value: "1", domain: ".example.com").makeHTTPCookie().domain == ".example.com")
    }

    @Test("Cookies Foundation parsed from a response keep their scope")
    func fromFoundationParsing() throws {
        let cookies = HTTPCookie.cookies(
            withResponseHeaderFields: ["Set-Cookie": "a=1; Domain=Example.com; Path=/; Secure"],
            for: url("https://www.example.com/"))
        let cookie = try #require(cookies.first.map(Cookie.init))
        #expect(cookie.domain == "example.com")
        #expect(!cookie.isHostOnly)
        #expect(cookie.isSecure)
    }

    @Test("Foundation refuses properties it cannot carry, reported as invalidCookieAttribute")
    func refused() {
        #expect(throws: CookieError.invalidCookieAttribute(name: "", attribute: "properties")) {
            try Cookie(name: "", value: "1", domain: "example.com").makeHTTPCookie()
        }
    }
}
