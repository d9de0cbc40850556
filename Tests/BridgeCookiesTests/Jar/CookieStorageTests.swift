import Foundation
import Testing

@testable import BridgeCookies

@Suite("Cookie storage (RFC 6265 5.3, 6.1, RFC 6265bis)")
struct CookieStorageTests {
    let site = url("https://www.example.com/shop/cart")

    @Test("RFC 6265 5.3 step 3 Max-Age beats Expires whatever their order")
    func maxAgeBeatsExpires() throws {
        let jar = makeFixedJar()
        jar.capture(
            setCookieHeaders: [
                "a=1; Max-Age=60; Expires=Wed, 01 Jan 2031 00:00:00 GMT",
                "b=2; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Max-Age=60",
                "c=3; Expires=Wed, 01 Jan 2031 00:00:00 GMT",
                "d=4",
            ], from: site)
        let expiries = Dictionary(uniqueKeysWithValues: jar.cookies.map { ($0.name, $0.expires) })
        #expect(expiries["a"] == cookieEpoch.addingTimeInterval(60))
        #expect(expiries["b"] == cookieEpoch.addingTimeInterval(60))
        #expect(expiries["c"] == utc(2031, 1, 1))
        #expect(expiries["d"] == .some(nil), "no Max-Age and no Expires: a session cookie")
    }

    @Test(
        "RFC 6265 5.3 step 3 Max-Age of zero or less, or a past Expires, deletes the stored cookie",
        arguments: [
            "sid=gone; Max-Age=0", "sid=gone; Max-Age=-1", "sid=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
            "sid=gone; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Max-Age=0",
        ])
    func deletion(_ header: String) throws {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["sid=1; Path=/", "keep=2; Path=/"], from: site)
        let rejected = jar.capture(setCookieHeaders: [header + "; Path=/"], from: site)
        #expect(rejected.isEmpty)
        #expect(jar.cookies.map(\.name) == ["keep"])
        #expect(jar.cookieHeader(for: site) == "keep=2")
        #expect(jar.storage.withLock { $0.entries.count } == 1, "the expired cookie is not stored at all")
    }

    @Test("RFC 6265 5.3 an already expired cookie is not stored, so it cannot evict a live one")
    func expiredNeverEvicts() throws {
        let jar = makeFixedJar(CookieJar.Configuration(maxCookiesPerDomain: 2))
        jar.capture(setCookieHeaders: ["a=1", "b=2"], from: site)
        #expect(jar.capture(setCookieHeaders: ["c=3; Max-Age=0"], from: site).isEmpty)
        #expect(jar.cookies.map(\.name) == ["a", "b"])
    }

    @Test("RFC 6265 5.3 step 3 a huge Max-Age is clamped to the latest representable date")
    func hugeMaxAge() throws {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["a=1; Max-Age=99999999999999999999"], from: site)
        #expect(jar.cookies.first?.expires == CookieDate.latest)
    }

    @Test("RFC 6265 5.3 step 6 no Domain makes a host-only cookie for the request host")
    func hostOnly() throws {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["a=1"], from: url("https://WWW.Example.com/"))
        let cookie = try #require(jar.cookies.first)
        #expect(cookie.domain == "www.example.com")
        #expect(cookie.isHostOnly)
    }

    @Test("RFC 6265 5.3 step 6 a Domain the host domain-matches makes a domain cookie")
    func domainCookie() throws {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["a=1; Domain=.EXAMPLE.com", "b=2; Domain=www.example.com"], from: site)
        #expect(jar.cookies.map(\.domain) == ["example.com", "www.example.com"])
        #expect(jar.cookies.allSatisfy { !$0.isHostOnly })
    }

    @Test(
        "RFC 6265 5.3 step 6 a Domain the request host does not domain-match is refused",
        arguments: [
            ("evil.com", "www.example.com"), ("sub.www.example.com", "www.example.com"),
            ("ample.com", "www.example.com"), ("other.example.com", "www.example.com"),
        ])
    func foreignDomain(_ domain: String, _ host: String) throws {
        let jar = makeFixedJar()
        let rejected = jar.capture(setCookieHeaders: ["a=1; Domain=\(domain)"], from: site)
        #expect(rejected.map(\.reason) == [.domainMismatch(domain: domain, host: host)])
        #expect(jar.cookies.isEmpty)
    }

    @Test("RFC 6265 5.3 step 5 a public-suffix Domain is refused unless it equals the host, which makes it host-only")
    func publicSuffix() throws {
        let jar = makeFixedJar()
        #expect(
            jar.capture(setCookieHeaders: ["a=1; Domain=com"], from: site).map(\.reason) == [
                .publicSuffix(domain: "com")
            ])
        #expect(
            jar.capture(setCookieHeaders: ["a=1; Domain=co.uk"], from: url("https://shop.co.uk/")).map(\.reason)
                == [.publicSuffix(domain: "co.uk")])
        #expect(
            jar.capture(setCookieHeaders: ["a=1; Domain=github.io"], from: url("https://me.github.io/")).map(\.reason)
                == [.publicSuffix(domain: "github.io")])
        #expect(jar.capture(setCookieHeaders: ["tok=1; Domain=localhost"], from: url("http://localhost:8080/")).isEmpty)
        let local = try #require(jar.cookies.first)
        #expect(local.domain == "localhost")
        #expect(local.isHostOnly)
        #expect(jar.cookieHeader(for: url("http://localhost/")) == "tok=1")
    }

    @Test("RFC 6265 5.3 step 5 hosts can add their own public suffixes")
    func additionalPublicSuffixes() {
        let jar = makeFixedJar(CookieJar.Configuration(additionalPublicSuffixes: ["tenant.example"]))
        let rejected = jar.capture(
            setCookieHeaders: ["a=1; Domain=tenant.example"], from: url("https://a.tenant.example/"))
        #expect(rejected.map(\.reason) == [.publicSuffix(domain: "tenant.example")])
    }

    @Test("RFC 6265 5.1.3 an IP host's cookies stay host-only even with a Domain equal to the host")
    func ipHosts() throws {
        let jar = makeFixedJar()
        #expect(jar.capture(setCookieHeaders: ["a=1; Domain=10.0.0.1"], from: url("https://10.0.0.1/")).isEmpty)
        #expect(jar.cookies.first?.isHostOnly == true)
        #expect(
            jar.capture(setCookieHeaders: ["b=1; Domain=0.0.1"], from: url("https://10.0.0.1/")).map(\.reason)
                == [.domainMismatch(domain: "0.0.1", host: "10.0.0.1")])
    }

    @Test("RFC 6265 5.3 step 7 no Path means the default-path of the request")
    func defaultPath() throws {
        let jar = makeFixedJar()
        jar.capture(
            setCookieHeaders: ["a=1", "b=2; Path=relative"], from: url("https://example.com/shop/cart/view?id=1"))
        #expect(jar.cookies.map(\.path) == ["/shop/cart", "/shop/cart"])
    }

    @Test(
        "RFC 6265 5.3 step 11 a cookie with the same name, domain and path replaces the old one and keeps its creation time"
    )
    func replacementKeepsCreationTime() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        jar.capture(setCookieHeaders: ["sid=1; Path=/; Domain=example.com"], from: site)
        clock.advance(by: 100)
        jar.capture(setCookieHeaders: ["sid=2; Path=/; Domain=example.com; Secure"], from: site)
        let cookie = try #require(jar.cookies.first)
        #expect(jar.cookies.count == 1)
        #expect(cookie.value == "2")
        #expect(cookie.isSecure)
        #expect(cookie.creationTime == cookieEpoch)
    }

    @Test("RFC 6265 5.3 step 11 the host-only flag is not part of the identity")
    func hostOnlyNotInIdentity() throws {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["a=1; Path=/"], from: url("https://example.com/"))
        jar.capture(setCookieHeaders: ["a=2; Path=/; Domain=example.com"], from: url("https://example.com/"))
        #expect(jar.cookies.count == 1)
        #expect(jar.cookies.first?.isHostOnly == false)
        jar.capture(setCookieHeaders: ["a=3; Path=/other"], from: url("https://example.com/"))
        #expect(jar.cookies.count == 2, "a different path is a different cookie")
    }

    @Test("RFC 6265 5.3 step 10 a non-HTTP source cannot set an HttpOnly cookie")
    func nonHTTPCannotSetHTTPOnly() {
        let jar = makeFixedJar()
        #expect(throws: CookieError.httpOnlyFromNonHTTPSource(name: "sid")) {
            try jar.setCookie("sid=1; HttpOnly", from: site, source: .nonHTTP)
        }
        #expect(jar.cookies.isEmpty)
    }

    @Test("RFC 6265 5.3 step 11 a non-HTTP source cannot overwrite or delete an HttpOnly cookie; HTTP can")
    func nonHTTPCannotOverwriteHTTPOnly() throws {
        let jar = makeFixedJar()
        try jar.setCookie("sid=1; Path=/; HttpOnly", from: site)
        #expect(throws: CookieError.overwritesHTTPOnly(name: "sid")) {
            try jar.setCookie("sid=evil; Path=/", from: site, source: .nonHTTP)
        }
        #expect(throws: CookieError.overwritesHTTPOnly(name: "sid")) {
            try jar.setCookie("sid=; Path=/; Max-Age=0", from: site, source: .nonHTTP)
        }
        #expect(jar.cookies.first?.value == "1")
        try jar.setCookie("sid=2; Path=/", from: site, source: .http)
        #expect(jar.cookies.first?.value == "2")
        try jar.setCookie("plain=1; Path=/", from: site, source: .nonHTTP)
        try jar.setCookie("plain=2; Path=/", from: site, source: .nonHTTP)
        #expect(jar.cookieHeader(for: site) == "sid=2; plain=2", "sid keeps its place; plain arrived later")
    }

    @Test("RFC 6265bis Secure cookies can only be set over a secure channel")
    func secureNeedsSecureOrigin() {
        let jar = makeFixedJar()
        let rejected = jar.capture(setCookieHeaders: ["tok=1; Secure"], from: url("http://localhost:8080/"))
        #expect(rejected.map(\.reason) == [.secureFromInsecureOrigin(name: "tok")])
    }

    @Test("RFC 6265bis a non-secure request cannot replace a Secure cookie whose domain and path overlap")
    func strictSecure() {
        let jar = makeFixedJar()
        jar.capture(setCookieHeaders: ["sid=1; Secure; Path=/; Domain=example.com"], from: url("https://example.com/"))
        let rejected = jar.capture(
            setCookieHeaders: ["sid=2; Path=/app", "other=3"], from: url("http://www.example.com/app/x"))
        #expect(rejected.map(\.reason) == [.overwritesSecure(name: "sid")])
        #expect(jar.cookies.map(\.value).sorted() == ["1", "3"])
    }

    @Test(
        "RFC 6265bis cookie prefixes: __Secure- needs Secure; __Host- needs Secure, no Domain and Path=/",
        arguments: [
            ("__Secure-a=1", false), ("__Secure-a=1; Secure", true), ("__secure-a=1", false),
            ("__Host-a=1; Secure; Path=/", true), ("__Host-a=1; Secure", false),
            ("__Host-a=1; Secure; Path=/; Domain=example.com", false), ("__Host-a=1; Path=/", false),
        ])
    func prefixes(_ header: String, _ accepted: Bool) {
        let jar = makeFixedJar()
        let rejected = jar.capture(setCookieHeaders: [header], from: url("https://example.com/app/page"))
        #expect(rejected.isEmpty == accepted)
        if !accepted {
            #expect(rejected.first.map { if case .prefixViolation = $0.reason { true } else { false } } == true)
        }
    }

    @Test("RFC 6265bis 5.6 a cookie of up to 4096 bytes (name + value) is kept; larger is refused")
    func sizeLimit() throws {
        let jar = makeFixedJar()
        let overhead = "n".utf8.count
        try jar.set(Cookie(name: "n", value: String(repeating: "v", count: 4096 - overhead), domain: "example.com"))
        #expect(jar.cookies.count == 1)
        #expect(throws: CookieError.cookieTooLarge(name: "n", bytes: 4097, limit: 4096)) {
            try jar.set(Cookie(name: "n", value: String(repeating: "v", count: 4097 - overhead), domain: "example.com"))
        }
    }

    @Test("RFC 6265 6.1 the 51st cookie of a domain evicts the least recently accessed one")
    func perDomainLimit() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        for index in 0..<50 {
            try jar.set(Cookie(name: "c\(index)", value: "v", domain: "example.com"))
            clock.advance(by: 1)
        }
        _ = jar.cookieHeader(for: url("https://example.com/"))  // touches all 50
        clock.advance(by: 1)
        try jar.set(Cookie(name: "c0", value: "touched", domain: "example.com"))  // c0 accessed most recently now
        try jar.set(Cookie(name: "other", value: "v", domain: "other.example"))
        clock.advance(by: 1)
        try jar.set(Cookie(name: "new", value: "v", domain: "example.com"))
        let names = Set(jar.cookies.filter { $0.domain == "example.com" }.map(\.name))
        #expect(names.count == 50)
        #expect(names.contains("new"))
        #expect(names.contains("c0"))
        #expect(!names.contains("c1"), "c1: oldest last access, then oldest creation")
        #expect(jar.cookies.contains { $0.name == "other" })
    }

    @Test("RFC 6265 6.1 eviction removes expired cookies before live ones")
    func expiredEvictedFirst() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar(CookieJar.Configuration(maxCookiesPerDomain: 3))
        try jar.set(Cookie(name: "old", value: "v", domain: "example.com"))
        clock.advance(by: 1)
        try jar.set(Cookie(name: "short", value: "v", domain: "example.com", expires: clock.now.addingTimeInterval(5)))
        clock.advance(by: 1)
        try jar.set(Cookie(name: "mid", value: "v", domain: "example.com"))
        clock.advance(by: 10)
        try jar.set(Cookie(name: "new", value: "v", domain: "example.com"))
        #expect(jar.cookies.map(\.name) == ["mid", "new", "old"])
    }

    @Test("RFC 6265 6.1 the total limit evicts the least recently accessed cookie of any domain")
    func totalLimit() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar(CookieJar.Configuration(maxCookies: 3))
        for name in ["a", "b", "c"] {
            try jar.set(Cookie(name: name, value: "v", domain: "\(name).example"))
            clock.advance(by: 1)
        }
        _ = jar.cookieHeader(for: url("https://a.example/"))  // a is now the most recently accessed
        clock.advance(by: 1)
        try jar.set(Cookie(name: "d", value: "v", domain: "d.example"))
        #expect(jar.cookies.map(\.name) == ["a", "c", "d"])
    }

    @Test("Host-app cookies: a leading dot means a domain cookie; a public-suffix or IP domain is host-only")
    func hostAppCookies() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "a", value: "1", domain: ".Example.com"))
        try jar.set(Cookie(name: "b", value: "1", domain: "example.com", isHostOnly: false))
        try jar.set(Cookie(name: "c", value: "1", domain: "com", isHostOnly: false))
        try jar.set(Cookie(name: "d", value: "1", domain: "192.168.0.1", isHostOnly: false))
        let byName = Dictionary(uniqueKeysWithValues: jar.cookies.map { ($0.name, $0) })
        #expect(byName["a"]?.domain == "example.com")
        #expect(byName["a"]?.isHostOnly == false)
        #expect(byName["b"]?.isHostOnly == false)
        #expect(byName["c"]?.isHostOnly == true)
        #expect(byName["d"]?.isHostOnly == true)
        #expect(byName["a"]?.creationTime == cookieEpoch)
    }

    @Test("Removing cookies by key, all at once, and purging expired ones")
    func removal() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        try jar.set(Cookie(name: "a", value: "1", domain: "example.com"))
        try jar.set(Cookie(name: "b", value: "2", domain: "example.com", expires: clock.now.addingTimeInterval(1)))
        #expect(jar.remove(CookieKey(name: "a", domain: "example.com", path: "/"))?.value == "1")
        #expect(jar.remove(CookieKey(name: "a", domain: "example.com", path: "/")) == nil)
        clock.advance(by: 1)
        jar.removeExpired()
        #expect(jar.storage.withLock { $0.entries.isEmpty })
        try jar.set(Cookie(name: "c", value: "3", domain: "example.com"))
        jar.removeAll()
        #expect(jar.cookies.isEmpty)
    }
}
