import Foundation
import Testing

@testable import BridgeCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Cookie matching and the Cookie header (RFC 6265 5.1.3, 5.1.4, 5.4)")
struct CookieMatchingTests {
    @Test(
        "RFC 6265 5.1.3 domain-match: identical, or a suffix after a dot, never for IP hosts",
        arguments: [
            ("example.com", "example.com", true),
            ("www.example.com", "example.com", true),
            ("a.b.example.com", "example.com", true),
            ("badexample.com", "example.com", false),
            ("example.com", "www.example.com", false),
            ("127.0.0.1", "127.0.0.1", true),
            ("127.0.0.1", "0.0.1", false),
            ("1.2.3.4", "3.4", false),
            ("::1", "::1", true),
        ])
    func domainMatch(_ host: String, _ domain: String, _ expected: Bool) {
        #expect(CookieRules.domainMatches(host: host, domain: domain) == expected)
    }

    @Test(
        "RFC 6265 5.1.4 path-match: identical, prefix ending in '/', or prefix followed by '/'",
        arguments: [
            ("/", "/", true), ("/foo", "/foo", true), ("/foo/bar", "/foo", true), ("/foo/", "/foo", true),
            ("/foo/bar", "/foo/", true), ("/foobar", "/foo", false), ("/fo", "/foo", false),
            ("/Foo", "/foo", false), ("/anything", "/", true), ("/foo", "/foo/", false),
        ])
    func pathMatch(_ requestPath: String, _ cookiePath: String, _ expected: Bool) {
        #expect(CookieRules.pathMatches(requestPath: requestPath, cookiePath: cookiePath) == expected)
    }

    @Test(
        "RFC 6265 5.1.4 default-path is the request path up to its last '/'",
        arguments: [
            ("", "/"), ("/", "/"), ("/file", "/"), ("/a/b/c", "/a/b"), ("/a/b/", "/a/b"), ("relative/x", "/"),
        ])
    func defaultPath(_ requestPath: String, _ expected: String) {
        #expect(CookieRules.defaultPath(ofRequestPath: requestPath) == expected)
    }

    @Test("RFC 6265 5.4 host-only cookies go only to their exact host; domain cookies to subdomains too")
    func hostOnlyVersusDomain() throws {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["host=1", "dom=2; Domain=example.com"], from: url("https://example.com/"))
        // Same path and creation time: the order of arrival (§5.4 step 2).
        #expect(jar.cookieHeader(for: url("https://example.com/")) == "host=1; dom=2")
        #expect(jar.cookieHeader(for: url("https://www.example.com/")) == "dom=2")
        #expect(jar.cookieHeader(for: url("https://EXAMPLE.com/")) == "host=1; dom=2")
        #expect(jar.cookieHeader(for: url("https://notexample.com/")) == nil)
    }

    @Test("RFC 6265 5.4 only path-matching cookies are sent")
    func pathFilter() throws {
        let jar = makeFixedJar()
        jar.capture(
            setCookieHeaders: ["root=1; Path=/", "docs=2; Path=/docs", "deep=3; Path=/docs/api/"],
            from: url("https://example.com/"))
        #expect(jar.cookieHeader(for: url("https://example.com/")) == "root=1")
        #expect(jar.cookieHeader(for: url("https://example.com/docs")) == "docs=2; root=1")
        #expect(jar.cookieHeader(for: url("https://example.com/docs/api/v1")) == "deep=3; docs=2; root=1")
        #expect(jar.cookieHeader(for: url("https://example.com/docsx")) == "root=1")
    }

    @Test("RFC 6265 4.1.2.5 Secure cookies go only over https and wss, with no localhost exception")
    func secureOnlyOverSecureChannels() throws {
        let jar = makeFixedJar()
        for host in ["example.com", "localhost", "127.0.0.1", "[::1]"] {
            jar.capture(setCookieHeaders: ["s=1; Secure", "p=2"], from: url("https://\(host)/"))
            #expect(jar.cookieHeader(for: url("https://\(host)/")) == "s=1; p=2")
            #expect(jar.cookieHeader(for: url("wss://\(host)/")) == "s=1; p=2")
            #expect(jar.cookieHeader(for: url("http://\(host):8080/")) == "p=2")
            #expect(jar.cookieHeader(for: url("ws://\(host)/")) == "p=2")
        }
    }

    @Test("RFC 6265 5.4 expired cookies are never sent")
    func expiredNotSent() {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        jar.capture(
            setCookieHeaders: ["short=1; Max-Age=60", "long=2; Max-Age=3600"], from: url("https://example.com/"))
        #expect(jar.cookieHeader(for: url("https://example.com/")) == "short=1; long=2")
        clock.advance(by: 60)
        #expect(jar.cookieHeader(for: url("https://example.com/")) == "long=2")
        #expect(jar.cookies.map(\.name) == ["long"])
    }

    @Test("RFC 6265 5.4 step 2 orders longer paths first, then earlier creation time")
    func ordering() {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        jar.capture(setCookieHeaders: ["late=1; Path=/"], from: url("https://example.com/"))
        clock.advance(by: -10)  // "early" is created before "late"
        jar.capture(setCookieHeaders: ["early=2; Path=/"], from: url("https://example.com/"))
        clock.advance(by: 20)
        jar.capture(setCookieHeaders: ["deep=3; Path=/a/b", "mid=4; Path=/a"], from: url("https://example.com/"))
        #expect(jar.cookieHeader(for: url("https://example.com/a/b/c")) == "deep=3; mid=4; early=2; late=1")
    }

    @Test(
        "RFC 6265 5.4 the header is for the HTTP API: HttpOnly cookies are included; the non-HTTP view leaves them out")
    func httpOnlyInHeader() {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["sid=1; HttpOnly", "theme=dark"], from: url("https://example.com/"))
        #expect(jar.cookieHeader(for: url("https://example.com/")) == "sid=1; theme=dark")
        #expect(jar.cookies(for: url("https://example.com/"), includeHTTPOnly: false).map(\.name) == ["theme"])
    }

    @Test(
        "Cookies do not apply to URLs without a host or with other schemes",
        arguments: [
            "file:///tmp/page.html", "about:blank", "data:text/html,x", "app-scheme://example.com/",
            "ftp://example.com/",
        ])
    func cookieAverseURLs(_ text: String) throws {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["a=1; Domain=example.com"], from: url("https://example.com/"))
        #expect(jar.cookieHeader(for: url(text)) == nil)
        #expect(jar.documentCookieAssignments(for: url(text)) == [])
        #expect(throws: CookieError.unsupportedURL(text)) {
            try jar.setCookie("b=2", from: url(text))
        }
    }

    @Test("RFC 6265 5.4 the header is recomputed per URL, so each redirect gets its own cookies")
    func perRedirect() throws {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["a=1"], from: url("https://login.example/"))
        jar.capture(setCookieHeaders: ["b=2; Path=/app"], from: url("https://app.example/"))
        let hops = ["https://login.example/start", "https://app.example/app/home", "https://app.example/other"]
        #expect(hops.map { jar.cookieHeader(for: url($0)) } == ["a=1", "b=2", nil])

        var request = URLRequest(url: url("https://login.example/start"))
        request.setValue("stale=1", forHTTPHeaderField: "Cookie")
        jar.applyCookieHeader(to: &request)
        #expect(request.value(forHTTPHeaderField: "Cookie") == "a=1")
        request.url = url("https://app.example/other")
        jar.applyCookieHeader(to: &request)
        #expect(request.value(forHTTPHeaderField: "Cookie") == nil)
    }
}
