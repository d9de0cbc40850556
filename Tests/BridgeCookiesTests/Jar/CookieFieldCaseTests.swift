import Foundation
import Testing

@testable import BridgeCookies

/// The cookie field cases of shared/cases/field-cases.md, clock fixed at 2030-01-01T00:00:00Z.
@Suite("Cookie field cases")
struct CookieFieldCaseTests {
    @Test("R29 apostrophe and '=' in cookie values: exactly two assignments, evaluated in node")
    func r29() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "pref", value: "it's", domain: "app.example", path: "/"))
        try jar.set(Cookie(name: "tok", value: "YWJjZA==", domain: "app.example", path: "/"))
        let outcome = try CookieScriptRunner.run(jar.documentCookieScript(for: url("https://app.example/")))
        #expect(outcome.assigned == ["pref=it's; path=/", "tok=YWJjZA==; path=/"])
        #expect(outcome.allStrings)
        // The whole family: apostrophes and quotes anywhere a cookie-octet may stand, in names too.
        let family = makeFixedJar()
        let values = ["'", "''", "'+'", "')+('", "\"'\"", "'-alert(1)-'", "x'/*"]
        for (index, value) in values.enumerated() {
            try family.set(Cookie(name: "c\(index)'", value: value, domain: "app.example"))
        }
        let familyOutcome = try CookieScriptRunner.run(family.documentCookieScript(for: url("https://app.example/")))
        #expect(familyOutcome.assigned == values.enumerated().map { "c\($0.offset)'=\($0.element); path=/" })
    }

    @Test(
        "R31 a ';' in a value or path is never turned into attributes: the jar refuses it, the script leaves it out and reports it (evaluated in node)"
    )
    func r31() throws {
        let jar = makeFixedJar()
        #expect(throws: CookieError.invalidCookieValue(name: "q")) {
            try jar.set(
                Cookie(name: "q", value: "v1; path=/admin; domain=example.org", domain: "example.org", path: "/"))
        }
        #expect(throws: CookieError.invalidCookieAttribute(name: "p", attribute: "path")) {
            try jar.set(Cookie(name: "p", value: "1", domain: "example.org", path: "/x;domain=example.org"))
        }
        // Cookies from elsewhere: left out of the script and reported, never truncated; the others go.
        let foreign = [
            Cookie(name: "q", value: "v1; path=/admin; domain=example.org", domain: "example.org"),
            Cookie(name: "p", value: "1", domain: "example.org", path: "/x;domain=example.org"),
            Cookie(name: "fine", value: "1", domain: "example.org"),
        ]
        let plan = DocumentCookieScript.plan(for: foreign, pageURL: url("https://example.org/"), now: cookieEpoch)
        #expect(plan.assignments == ["fine=1; path=/"])
        #expect(
            plan.omitted == [
                DocumentCookieOmission(
                    cookie: CookieKey(name: "p", domain: "example.org", path: "/x;domain=example.org"),
                    reason: .semicolon),
                DocumentCookieOmission(
                    cookie: CookieKey(name: "q", domain: "example.org", path: "/"), reason: .semicolon),
            ])
        let foreignOutcome = try CookieScriptRunner.run(plan.script(), pageURL: "https://example.org/")
        #expect(foreignOutcome.assigned == ["fine=1; path=/"])
        // The family: a ';' or a control a value could smuggle in is refused. (A space, ',', '"',
        // '\\' or HTAB is kept: RFC 6265 5.2 stores them, and in the script they stay data.)
        for bad in [";", "\n", "\r", "\u{0}", "\u{7F}", "\u{1B}"] {
            #expect(throws: CookieError.invalidCookieValue(name: "q")) {
                try jar.set(Cookie(name: "q", value: "v1" + bad + "path=/admin", domain: "example.org"))
            }
        }
        // Nothing refused reached the jar; what the page receives has no injected attribute.
        try jar.set(Cookie(name: "ok", value: "v1", domain: "example.org"))
        let outcome = try CookieScriptRunner.run(
            jar.documentCookieScript(for: url("https://example.org/")), pageURL: "https://example.org/")
        #expect(outcome.assigned == ["ok=v1; path=/"])
        #expect(!outcome.assigned.contains { $0.contains("path=/admin") || $0.contains("domain=example.org") })
    }

    @Test("R33 HttpOnly cookies are left out of the script but sent in the Cookie header")
    func r33() throws {
        let jar = makeFixedJar()
        try jar.set(
            Cookie(name: "sid", value: "s3cret", domain: "app.example", path: "/", isSecure: true, isHTTPOnly: true))
        try jar.set(Cookie(name: "theme", value: "dark", domain: "app.example", path: "/"))
        let page = url("https://app.example/")
        let script = try jar.documentCookieScript(for: page)
        #expect(!script.contains("sid="))
        #expect(!script.contains("s3cret"))
        #expect(jar.documentCookieAssignments(for: page) == ["theme=dark; path=/"])
        #expect(jar.cookieHeader(for: page) == "sid=s3cret; theme=dark")
        // The same holds for cookies given to the script builder directly.
        #expect(
            DocumentCookieScript.assignments(for: jar.cookies, pageURL: page, now: cookieEpoch) == [
                "theme=dark; path=/"
            ])
        // And the host learns why sid is not in the script.
        #expect(
            jar.documentCookiePlan(for: page).omitted == [
                DocumentCookieOmission(
                    cookie: CookieKey(name: "sid", domain: "app.example", path: "/"), reason: .httpOnly)
            ])
    }

    @Test(
        "R34 a leading dot in Domain is ignored, so the second Set-Cookie replaces the first; other domains never appear"
    )
    func r34() throws {
        let jar = makeFixedJar()
        let from = url("https://www.shop.example/")
        #expect(
            jar.capture(
                setCookieHeaders: ["sid=1; Domain=.shop.example; Path=/", "sid=2; Domain=shop.example; Path=/"],
                from: from
            ).isEmpty)
        #expect(jar.capture(setCookieHeaders: ["track=9"], from: url("https://other.test/")).isEmpty)
        let sids = jar.cookies.filter { $0.name == "sid" }
        #expect(sids.count == 1)
        #expect(sids.first?.value == "2")
        #expect(sids.first?.domain == "shop.example")
        #expect(jar.cookieHeader(for: url("https://www.shop.example/cart")) == "sid=2")
    }

    @Test(
        "R35 a dotted domain cookie matches the domain and subdomains, a host-only cookie only its host, across a save and load"
    )
    func r35() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "a", value: "A", domain: ".api.example", path: "/"))
        try jar.set(Cookie(name: "b", value: "B", domain: "api.example", isHostOnly: true, path: "/"))
        func check(_ jar: CookieJar) {
            #expect(jar.cookieHeader(for: url("https://api.example/")) == "a=A; b=B")
            #expect(jar.cookieHeader(for: url("https://v2.api.example/")) == "a=A")
            #expect(jar.cookieHeader(for: url("https://badapi.example/")) == nil)
        }
        check(jar)

        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try jar.save(to: file, includeSessionCookies: true)
        let reloaded = makeFixedJar()
        try reloaded.load(from: file)
        #expect(reloaded.cookies == jar.cookies)
        #expect(reloaded.cookies.map(\.isHostOnly) == [false, true])
        check(reloaded)

        // The platform carrier keeps the scope too (leading dot = domain cookie).
        let carried = try jar.cookies.map { try Cookie($0.makeHTTPCookie()) }
        #expect(carried.map(\.isHostOnly) == [false, true])
        #expect(carried.map(\.domain) == ["api.example", "api.example"])
    }

    @Test("R37 same-name cookies that differ by domain and path are all kept and sent, longer path first")
    func r37() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        try jar.set(Cookie(name: "id", value: "outer", domain: "example.com", isHostOnly: false, path: "/"))
        clock.advance(by: 1)
        try jar.set(Cookie(name: "id", value: "inner", domain: "media.example.com", isHostOnly: true, path: "/img"))
        let target = url("https://media.example.com/img/a.png")
        #expect(jar.cookies.count == 2)
        #expect(jar.cookieHeader(for: target) == "id=inner; id=outer")
        let outcome = try CookieScriptRunner.run(jar.documentCookieScript(for: target), pageURL: target.absoluteString)
        #expect(outcome.assigned == ["id=inner; path=/img", "id=outer; path=/; domain=example.com"])

        // Same name, same domain, two paths: still two cookies.
        try jar.set(Cookie(name: "id", value: "img2", domain: "media.example.com", path: "/img/2"))
        #expect(jar.cookieHeader(for: url("https://media.example.com/img/2/x")) == "id=img2; id=inner; id=outer")
    }

    @Test("R39 the header joins pairs with a semicolon and one space, no trailing separator")
    func r39() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "a", value: "1", domain: "app.example"))
        #expect(jar.cookieHeader(for: url("https://app.example/")) == "a=1")
        try jar.set(Cookie(name: "b", value: "2", domain: "app.example"))
        #expect(jar.cookieHeader(for: url("https://app.example/")) == "a=1; b=2")
        try jar.set(Cookie(name: "c", value: "", domain: "app.example"))
        #expect(jar.cookieHeader(for: url("https://app.example/")) == "a=1; b=2; c=")
        // The emulated document.cookie string (non-HTTP view) uses the same separator.
        #expect(
            CookieRules.cookieString(jar.cookies(for: url("https://app.example/"), includeHTTPOnly: false))
                == "a=1; b=2; c=")
    }

    @Test("R41 Secure cookies are not sent to http://localhost (no loopback exception) and not put in its script")
    func r41() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "tok", value: "t", domain: "localhost", path: "/", isSecure: true))
        for http in ["http://localhost:8080/", "http://127.0.0.1:8080/", "http://[::1]:8080/"] {
            let host = try #require(url(http).host())
            try jar.set(Cookie(name: "tok", value: "t", domain: host, path: "/", isSecure: true))
            #expect(jar.cookieHeader(for: url(http)) == nil)
            #expect(jar.documentCookieAssignments(for: url(http)) == [])
            #expect(try !jar.documentCookieScript(for: url(http)).contains("tok="))
        }
        #expect(jar.cookieHeader(for: url("https://localhost/")) == "tok=t")
        #expect(jar.documentCookieAssignments(for: url("https://localhost/")) == ["tok=t; path=/; secure"])
    }

    @Test("R42 session cookies are carried without expires; persistent ones with an IMF-fixdate")
    func r42() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "s", value: "1", domain: "app.example"))
        try jar.set(Cookie(name: "p", value: "2", domain: "app.example", expires: utc(2031, 1, 1)))
        let page = url("https://app.example/")
        #expect(jar.cookieHeader(for: page) == "s=1; p=2")
        let outcome = try CookieScriptRunner.run(jar.documentCookieScript(for: page))
        #expect(outcome.assigned == ["s=1; path=/", "p=2; path=/; expires=Wed, 01 Jan 2031 00:00:00 GMT"])
        #expect(outcome.assigned.first { $0.hasPrefix("s=") }?.contains("expires=") == false)
    }

    @Test("R43 non-ASCII values: the header carries the stored UTF-8, the script agrees; nothing throws")
    func r43() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "city", value: "Zürich", domain: "app.example"))
        try jar.set(Cookie(name: "note", value: "東京", domain: "app.example"))
        jar.capture(setCookieHeaders: ["emoji=😀; Path=/"], from: url("https://app.example/"))
        let page = url("https://app.example/")
        let header = try #require(jar.cookieHeader(for: page))
        #expect(header == "city=Zürich; note=東京; emoji=😀")
        let outcome = try CookieScriptRunner.run(jar.documentCookieScript(for: page))
        let pairs = outcome.assigned.map { String($0.prefix { $0 != ";" }) }
        #expect(pairs.joined(separator: "; ") == header, "header and script agree")
    }

    @Test("R43 with the opt-in percent-encoding: the header is ASCII and the script applies the same choice")
    func r43PercentEncoded() throws {
        let jar = makeFixedJar(CookieJar.Configuration(outputEncoding: .percentEncodedNonASCII))
        try jar.set(Cookie(name: "city", value: "Zürich", domain: "app.example"))
        try jar.set(Cookie(name: "note", value: "東京", domain: "app.example"))
        jar.capture(setCookieHeaders: ["emoji=😀; Path=/"], from: url("https://app.example/"))
        let page = url("https://app.example/")
        let header = try #require(jar.cookieHeader(for: page))
        #expect(header == "city=Z%C3%BCrich; note=%E6%9D%B1%E4%BA%AC; emoji=%F0%9F%98%80")
        #expect(header.unicodeScalars.allSatisfy { $0.isASCII })
        #expect(jar.cookies.map(\.value).contains("Zürich"), "the jar still stores what it received")
        let outcome = try CookieScriptRunner.run(jar.documentCookieScript(for: page))
        let pairs = outcome.assigned.map { String($0.prefix { $0 != ";" }) }
        #expect(pairs.joined(separator: "; ") == header, "header and script agree")
    }
}
