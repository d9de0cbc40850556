import BridgeKit
import Foundation
import Testing

@testable import BridgeCookies

@Suite("document.cookie script")
struct DocumentCookieScriptTests {
    let page = url("https://app.example/account/settings")

    @Test("Each assignment carries path, domain only for domain cookies, expires, secure and samesite")
    func assignmentAttributes() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "host", value: "1", domain: "app.example", path: "/account"))
        try jar.set(
            Cookie(
                name: "dom", value: "2", domain: "app.example", isHostOnly: false, path: "/",
                expires: utc(2031, 1, 1), isSecure: true, sameSite: .strict))
        try jar.set(Cookie(name: "lax", value: "3", domain: "app.example", sameSite: .lax))
        try jar.set(
            Cookie(name: "none", value: "4", domain: "app.example", isSecure: true, sameSite: CookieSameSite.none))
        #expect(
            jar.documentCookieAssignments(for: page) == [
                "host=1; path=/account",
                "dom=2; path=/; domain=app.example; expires=Wed, 01 Jan 2031 00:00:00 GMT; secure; samesite=Strict",
                "lax=3; path=/; samesite=Lax",
                "none=4; path=/; secure; samesite=None",
            ])
    }

    @Test("The script carries every path of the page's host, but no other host's host-only cookies")
    func selection() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "other-path", value: "1", domain: "app.example", path: "/admin"))
        try jar.set(Cookie(name: "parent", value: "2", domain: "example", isHostOnly: false))
        try jar.set(Cookie(name: "sibling", value: "3", domain: "api.app.example"))
        try jar.set(Cookie(name: "parent-domain", value: "4", domain: "app.example", isHostOnly: false))
        let names = jar.documentCookieAssignments(for: page).map { $0.prefix { $0 != "=" } }
        #expect(
            names == ["other-path", "parent-domain"], "'example' is a single label: host-only, so not for app.example")
    }

    @Test("Expired cookies are left out; pages that cannot use cookies get no assignment")
    func expiredAndCookieAverse() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        try jar.set(Cookie(name: "soon", value: "1", domain: "app.example", expires: clock.now.addingTimeInterval(10)))
        try jar.set(
            Cookie(name: "later", value: "2", domain: "app.example", expires: clock.now.addingTimeInterval(100)))
        clock.advance(by: 10)
        #expect(jar.documentCookieAssignments(for: page) == ["later=2; path=/; expires=Tue, 01 Jan 2030 00:01:40 GMT"])
        #expect(jar.documentCookieAssignments(for: url("wss://app.example/")) == [])
        #expect(jar.documentCookieAssignments(for: url("file:///app.example/index.html")) == [])
    }

    /// What ``PageFunction/assignCookiesOnPage`` takes.
    struct Arguments: Encodable {
        let scheme: String
        let host: String
        let cookies: [String]
    }

    @Test("The script is PageScript's assignCookiesOnPage call with the page and the assignments as JSON data")
    func builtByPageScript() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "a", value: "1", domain: "app.example"))
        let script = try jar.documentCookieScript(for: page)
        let expected = try PageScript.build(
            calling: .assignCookiesOnPage,
            encoding: Arguments(scheme: "https", host: "app.example", cookies: ["a=1; path=/"]))
        #expect(script == expected)
        #expect(script.hasPrefix(PageFunction.assignCookiesOnPage.source + "("))
        #expect(try DocumentCookieScript.script(for: jar.cookies, pageURL: page, now: cookieEpoch) == expected)
    }

    /// Attack 14 (finding 4): installed as a document-start user script, the script runs in
    /// every main-frame document the view shows; it gave the app's cookies to any other site
    /// the user went to.
    @Test(
        "The script assigns only in a document of the page's scheme and host",
        arguments: [
            ("https://app.example/other/page", true),
            ("https://APP.example:8443/", true),
            ("https://evil.example/", false),
            ("https://sub.app.example/", false),
            ("http://app.example/", false),
            ("https://app.example.evil.example/", false),
        ])
    func assignsOnlyOnItsPage(documentURL: String, assigns: Bool) throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "csrf", value: "tok-A", domain: "app.example"))
        let outcome = try CookieScriptRunner.run(jar.documentCookieScript(for: page), pageURL: documentURL)
        #expect(outcome.assigned == (assigns ? ["csrf=tok-A; path=/"] : []), "\(documentURL)")
    }

    /// Attack 15 (finding 5): a start URL redirected from http to https got none of its cookies.
    @Test("An http page's script assigns in the https document of its host too, never the reverse")
    func httpPlanOnHTTPSPage() throws {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "csrf", value: "tok-A", domain: "app.example"))
        let httpScript = try jar.documentCookieScript(for: url("http://app.example/"))
        #expect(
            try CookieScriptRunner.run(httpScript, pageURL: "https://app.example/").assigned == ["csrf=tok-A; path=/"])
        #expect(
            try CookieScriptRunner.run(httpScript, pageURL: "http://app.example/x").assigned == ["csrf=tok-A; path=/"])
        #expect(try CookieScriptRunner.run(httpScript, pageURL: "https://evil.example/").assigned == [])
        let httpsScript = try jar.documentCookieScript(for: url("https://app.example/"))
        #expect(try CookieScriptRunner.run(httpsScript, pageURL: "http://app.example/").assigned == [])
    }

    @Test("An IPv6 page's script assigns in its own document (location.hostname has brackets)")
    func ipv6Page() throws {
        let jar = makeFixedJar()
        let ipv6 = url("http://[::1]:8080/")
        try jar.set(Cookie(name: "a", value: "1", domain: "::1"))
        #expect(jar.documentCookieAssignments(for: ipv6) == ["a=1; path=/"])
        let outcome = try CookieScriptRunner.run(jar.documentCookieScript(for: ipv6), pageURL: "http://[::1]:8080/x")
        #expect(outcome.assigned == ["a=1; path=/"])
        let other = try CookieScriptRunner.run(jar.documentCookieScript(for: ipv6), pageURL: "http://[::2]:8080/x")
        #expect(other.assigned == [])
    }

    @Test("Cookies given directly: one that cannot be expressed is left out and reported; the others still go")
    func directCookiesChecked() throws {
        let good = Cookie(name: "ok", value: "1", domain: "app.example")
        let bad = Cookie(name: "q", value: "a;b", domain: "app.example")
        let plan = DocumentCookieScript.plan(
            for: [good, bad, Cookie(name: "c", value: "Zürich", domain: ".app.example")],
            pageURL: page, now: cookieEpoch)
        #expect(plan.assignments == ["ok=1; path=/", "c=Zürich; path=/; domain=app.example"])
        #expect(plan.omitted.map(\.reason) == [.semicolon])
        #expect(
            try DocumentCookieScript.script(for: [good, bad], pageURL: page, now: cookieEpoch)
                == PageScript.build(
                    calling: .assignCookiesOnPage,
                    encoding: Arguments(scheme: "https", host: "app.example", cookies: ["ok=1; path=/"])))
    }

    @Test("Eval-level: names and values with every cookie-octet, quotes, '<' and non-ASCII arrive exactly")
    func evaluatedInNode() throws {
        let jar = makeFixedJar()
        let cookies = [
            Cookie(name: "all", value: allCookieOctets, domain: "app.example"),
            Cookie(name: "a'b", value: "</script><!--", domain: "app.example", path: "/account"),
            Cookie(name: "q", value: "\"x'y\"", domain: "app.example"),
            Cookie(name: "ls", value: "\u{2028}\u{2029}", domain: "app.example"),
            Cookie(name: "tmpl", value: "${probe}`", domain: "app.example"),
        ]
        for cookie in cookies { try jar.set(cookie) }
        let expected = jar.documentCookieAssignments(for: page)
        #expect(expected.count == 5)
        let outcome = try CookieScriptRunner.run(jar.documentCookieScript(for: page))
        #expect(outcome.assigned == expected)
        #expect(outcome.allStrings)
        #expect(outcome.completion == "undefined")
        #expect(outcome.assigned.contains("ls=\u{2028}\u{2029}; path=/"))
    }
}
