import Foundation
import Testing

@testable import BridgeCookies

/// Issue 23 item 3: what browsers enforce on top of RFC 6265.
@Suite("Cookies: browser rules on top of RFC 6265 (6265bis, CHIPS)")
struct CookieBrowserRulesTests {
    let origin = url("https://app.example/")

    @Test(
        "CHIPS Partitioned is parsed, kept, written to the script and the file",
        arguments: [
            ("a=1; Secure; Partitioned", true), ("a=1; Secure; partitioned=whatever", true), ("a=1; Secure", false),
        ])
    func partitioned(_ header: String, _ expected: Bool) throws {
        #expect(SetCookieParser.parse(header)?.isPartitioned == expected)
        let jar = makeFixedJar()
        try jar.setCookie(header + "; Max-Age=60", from: origin)
        #expect(jar.cookies.first?.isPartitioned == expected)
        #expect(jar.documentCookieAssignments(for: origin).first?.hasSuffix("; partitioned") == expected)
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try jar.save(to: file)
        let reloaded = makeFixedJar()
        try reloaded.load(from: file)
        #expect(reloaded.cookies == jar.cookies)
        #expect(reloaded.cookies.first?.isPartitioned == expected)
    }

    @Test("CHIPS a Partitioned cookie without Secure is refused, as browsers do")
    func partitionedNeedsSecure() {
        let jar = makeFixedJar()
        #expect(throws: CookieError.partitionedWithoutSecure(name: "a")) {
            try jar.setCookie("a=1; Partitioned", from: origin)
        }
    }

    @Test(
        "RFC 6265bis SameSite is kept as sent; a cookie without it gets the browsers' Lax-by-default as its effective value",
        arguments: [
            ("a=1", CookieSameSite?.none, CookieSameSite.lax),
            ("a=1; SameSite=Strict", .strict, .strict),
            ("a=1; SameSite=None; Secure", CookieSameSite.none, CookieSameSite.none),
            ("a=1; SameSite=Bogus", nil, .lax),
        ])
    func sameSiteDefault(_ header: String, _ stored: CookieSameSite?, _ effective: CookieSameSite) throws {
        let jar = makeFixedJar()
        try jar.setCookie(header, from: origin)
        let cookie = try #require(jar.cookies.first)
        #expect(cookie.sameSite == stored)
        #expect(cookie.effectiveSameSite == effective)
    }

    @Test(
        "RFC 6265bis prefixes are matched case-insensitively and checked for the host app's cookies too",
        arguments: [
            ("__HOST-a=1; Secure; Path=/", true), ("__HOST-a=1; Secure; Path=/x", false), ("__SECURE-b=1", false),
        ])
    func prefixesCaseInsensitive(_ header: String, _ accepted: Bool) throws {
        let jar = makeFixedJar()
        #expect(jar.capture(setCookieHeaders: [header], from: origin).isEmpty == accepted)
        #expect(throws: CookieError.prefixViolation(name: "__Host-x")) {
            try jar.set(Cookie(name: "__Host-x", value: "1", domain: "app.example", isHostOnly: false, isSecure: true))
        }
    }
}
