import Foundation
import Testing

@testable import BridgeCookies

/// RFC 6265 §5.4, one named row per rule of each step, and the persistence file keeping the
/// cookies of these tables byte-exact.
@Suite("RFC 6265 5.4 table: the Cookie header")
struct RFC6265HeaderTableTests {
    /// A jar with one cookie per rule, created 10 s apart in this order.
    static func makeJar() -> (CookieJar, CookieTestClock) {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        let responses: [(String, String)] = [
            ("https://www.a.example/", "host=1"),
            ("https://www.a.example/", "dom=2; Domain=a.example"),
            ("https://www.a.example/docs/x", "docs=3; Path=/docs"),
            ("https://www.a.example/", "sec=4; Secure"),
            ("https://www.a.example/", "http=5; HttpOnly"),
            ("https://www.a.example/", "short=6; Max-Age=15"),
            ("https://www.a.example/", "raw=\"a b\\054c\""),
        ]
        for (origin, header) in responses {
            jar.capture(setCookieHeaders: [header], from: url(origin))
            clock.advance(by: 10)
        }
        return (jar, clock)
    }

    struct Request: Sendable {
        var url: String
        var httpAPI = true
        var later: TimeInterval = 0
        init(_ url: String, httpAPI: Bool = true, later: TimeInterval = 0) {
            self.url = url
            self.httpAPI = httpAPI
            self.later = later
        }
    }

    @Test(
        "RFC 6265 5.4 the Cookie header, every step",
        arguments: [
            // Step 1: selection.
            Row(
                "1 host-only: exact host", Request("https://www.a.example/"),
                "host=1; dom=2; sec=4; http=5; raw=\"a b\\054c\""),
            Row("1 host-only: not a subdomain; domain cookie: yes", Request("https://x.www.a.example/"), "dom=2"),
            Row("1 domain cookie: the domain itself", Request("https://a.example/"), "dom=2"),
            Row("1 other hosts get nothing", Request("https://b.example/"), nil),
            Row(
                "1 path-match", Request("https://www.a.example/docs/page"),
                "docs=3; host=1; dom=2; sec=4; http=5; raw=\"a b\\054c\""),
            Row(
                "1 not a path-match", Request("https://www.a.example/docsx"),
                "host=1; dom=2; sec=4; http=5; raw=\"a b\\054c\""),
            Row(
                "1 Secure only over a secure channel", Request("http://www.a.example/"),
                "host=1; dom=2; http=5; raw=\"a b\\054c\""),
            Row(
                "1 HttpOnly only for the HTTP API", Request("https://www.a.example/", httpAPI: false),
                "host=1; dom=2; sec=4; raw=\"a b\\054c\""),
            Row(
                "1 an expired cookie is not sent", Request("https://www.a.example/", later: 0),
                "host=1; dom=2; sec=4; http=5; raw=\"a b\\054c\""),
            // Step 2: longer paths first, then earlier creation (the order of arrival for equal times).
            Row(
                "2 longer path first, then creation order", Request("https://www.a.example/docs/"),
                "docs=3; host=1; dom=2; sec=4; http=5; raw=\"a b\\054c\""),
            // Step 4: name=value joined by "; ", values as stored.
            Row(
                "4 stored octets, '; ' separator, no trailing separator",
                Request("https://www.a.example/", httpAPI: false),
                "host=1; dom=2; sec=4; raw=\"a b\\054c\""),
        ] as [Row<Request, String?>])
    func header(_ row: Row<Request, String?>) {
        let (jar, clock) = Self.makeJar()
        clock.advance(by: row.input.later)
        let cookies = jar.cookies(for: url(row.input.url), includeHTTPOnly: row.input.httpAPI)
        let header = cookies.isEmpty ? nil : CookieRules.cookieString(cookies)
        #expect(header == row.expected)
    }

    @Test("RFC 6265 5.4 step 1 a cookie expired since it was stored is not sent")
    func expiredNotSent() {
        let (jar, clock) = Self.makeJar()
        // short=6 was created at +50 with Max-Age=15; the clock stands at +70.
        #expect(jar.cookies.map(\.name).contains("short") == false)
        clock.advance(by: -20)
        #expect(jar.cookieHeader(for: url("https://www.a.example/"))?.contains("short=6") == true)
    }

    @Test("RFC 6265 5.4 step 3 last-access-time is updated for the cookies sent")
    func lastAccess() throws {
        let (jar, clock) = Self.makeJar()
        clock.advance(by: 100)
        _ = jar.cookieHeader(for: url("https://a.example/"))
        let accessed = jar.storage.withLock { storage in storage.entries.values.map { ($0.cookie.name, $0.lastAccess) }
        }
        let byName = Dictionary(uniqueKeysWithValues: accessed)
        #expect(byName["dom"] == clock.now)
        #expect(byName["host"] == cookieEpoch)
    }

    @Test(
        "The persistence file keeps every stored octet of such cookies across save and load",
        arguments: [
            Row("quoted with octal escapes", "prefs=\"a b\\054c\"", "\"a b\\054c\""),
            Row("JSON in quotes with escaped quotes", "j=\"{\\\"a\\\": 1}\"", "\"{\\\"a\\\": 1}\""),
            Row("unbalanced quote", "u=\"zz", "\"zz"),
            Row("inner quote", "i=A\"B", "A\"B"),
            Row("space and comma", "s=y, a=b", "y, a=b"),
            Row("backslash at the end", "b=a\\", "a\\"),
            Row("HTAB inside", "t=a\tb", "a\tb"),
            Row("UTF-8 text", "c=春节", "春节"),
            Row("combining mark kept unnormalised", "e=e\u{301}", "e\u{301}"),
            Row("precomposed kept unnormalised", "p=\u{E9}", "\u{E9}"),
            Row("line separators", "l=\u{2028}\u{2029}", "\u{2028}\u{2029}"),
            Row("slash and '<'", "h=</script>", "</script>"),
        ])
    func persistenceByteExact(_ row: Row<String, String>) throws {
        let jar = makeFixedJar()
        try jar.setCookie(row.input + "; Max-Age=3600", from: url("https://a.example/"))
        try jar.setCookie("\"n m=1", from: url("https://a.example/"))
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try jar.save(to: file)
        let reloaded = makeFixedJar()
        #expect(try reloaded.load(from: file) == 1, "session cookies are not saved by default")
        let cookie = try #require(reloaded.cookies.first)
        #expect(Array(cookie.value.utf8) == Array(row.expected.utf8))
        #expect(Array(cookie.name.utf8) == Array(row.input.prefix { $0 != "=" }.utf8))
        try jar.save(to: file, includeSessionCookies: true)
        try reloaded.load(from: file)
        #expect(reloaded.cookies == jar.cookies)
        #expect(reloaded.cookies.map { Array($0.name.utf8) } == jar.cookies.map { Array($0.name.utf8) })
    }
}
