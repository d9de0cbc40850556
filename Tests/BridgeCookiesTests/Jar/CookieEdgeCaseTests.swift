import Foundation
import Testing

@testable import BridgeCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RFC 6265 edge cases an attack on the cookie layer tried and the jar held: pinned.
@Suite("Cookie edge cases that hold")
struct CookieEdgeCaseTests {
    @Test("IDN host: a cookie from http://bücher.de/ is stored and sent back (A-label)")
    func idnHost() throws {
        let jar = makeFixedJar()
        let u = url("http://bücher.de/")
        try jar.setCookie("a=1", from: u)
        #expect(jar.cookieHeader(for: u) == "a=1")
        #expect(jar.cookieHeader(for: url("http://xn--bcher-kva.de/")) == "a=1")
        try jar.setCookie("b=2; Domain=xn--bcher-kva.de", from: url("http://www.bücher.de/"))
        #expect(jar.cookieHeader(for: url("http://bücher.de/")) == "a=1; b=2")
    }

    @Test("IP host: Domain of a suffix refused; exact Domain host-only")
    func ipHost() throws {
        let jar = makeFixedJar()
        #expect(throws: CookieError.self) {
            try jar.setCookie("a=1; Domain=168.1.10", from: url("http://192.168.1.10/"))
        }
        try jar.setCookie("b=2; Domain=192.168.1.10", from: url("http://192.168.1.10/"))
        #expect(jar.cookieHeader(for: url("http://192.168.1.10/")) == "b=2")
        #expect(jar.cookieHeader(for: url("http://1.192.168.1.10/")) == nil)
    }

    @Test(
        "HTTPCookie round trip keeps every field (Linux corelibs)",
        arguments: [
            Cookie(
                name: "h", value: "1", domain: "example.com", isHostOnly: true, path: "/", expires: nil,
                isSecure: false, isHTTPOnly: false, sameSite: nil),
            Cookie(
                name: "d", value: "\"a b\"", domain: "example.com", isHostOnly: false, path: "/x",
                expires: Date(timeIntervalSince1970: 1_900_000_000.5), isSecure: true, isHTTPOnly: true, sameSite: nil),
            Cookie(
                name: "p", value: "v=w,x", domain: "example.com", isHostOnly: true, path: "/%C3%A4",
                expires: Date(timeIntervalSince1970: 1_900_000_000), isSecure: false, isHTTPOnly: false, sameSite: nil),
            Cookie(
                name: "ip", value: "1", domain: "192.168.1.10", isHostOnly: true, path: "/", expires: nil,
                isSecure: false, isHTTPOnly: false, sameSite: nil),
            Cookie(
                name: "n ä", value: "春节", domain: "example.com", isHostOnly: true, path: "/", expires: nil,
                isSecure: false, isHTTPOnly: false, sameSite: nil),
            Cookie(
                name: "e", value: "", domain: "example.com", isHostOnly: true, path: "/", expires: nil,
                isSecure: false, isHTTPOnly: false, sameSite: nil),
        ])
    func httpCookieRoundTrip(_ cookie: Cookie) throws {
        let back = Cookie(try cookie.makeHTTPCookie())
        #expect(back.name == cookie.name)
        #expect(back.value == cookie.value)
        #expect(back.domain == cookie.domain)
        #expect(back.isHostOnly == cookie.isHostOnly)
        #expect(back.path == cookie.path)
        #expect(back.expires == cookie.expires)
        #expect(back.isSecure == cookie.isSecure)
        #expect(back.isHTTPOnly == cookie.isHTTPOnly)
    }

    @Test("Max-Age beats Expires in any order; an invalid Max-Age is ignored")
    func maxAgePrecedence() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        try jar.setCookie("a=1; Max-Age=10; Expires=Wed, 01 Jan 2031 00:00:00 GMT", from: url("http://e.com/"))
        try jar.setCookie("b=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Max-Age=10", from: url("http://e.com/"))
        try jar.setCookie("c=1; Max-Age=1e3; Expires=Wed, 01 Jan 2031 00:00:00 GMT", from: url("http://e.com/"))
        try jar.setCookie("d=1; Max-Age=10; Max-Age=x", from: url("http://e.com/"))
        clock.advance(by: 11)
        #expect(jar.cookieHeader(for: url("http://e.com/")) == "c=1")
    }

    @Test("a huge Max-Age is clamped to 9999-12-31 and still converts to HTTPCookie")
    func hugeMaxAge() throws {
        let jar = makeFixedJar()
        try jar.setCookie("a=1; Max-Age=99999999999999999999999", from: url("http://e.com/"))
        let c = try #require(jar.cookies.first)
        _ = try c.makeHTTPCookie()
        #expect(c.expires == CookieDate.latest)
    }

    @Test("Secure from http refused; an http cookie cannot shadow a Secure one (6265bis)")
    func secureFromHTTP() throws {
        let jar = makeFixedJar()
        #expect(throws: CookieError.self) { try jar.setCookie("s=1; Secure", from: url("http://e.com/")) }
        try jar.setCookie("s=1; Secure; Domain=e.com", from: url("https://e.com/"))
        #expect(throws: CookieError.self) { try jar.setCookie("s=2", from: url("http://www.e.com/")) }
        #expect(throws: CookieError.self) { try jar.setCookie("s=2; Path=/deep", from: url("http://e.com/")) }
    }
}
