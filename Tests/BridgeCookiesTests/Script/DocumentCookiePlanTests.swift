import Foundation
import Testing

@testable import BridgeCookies

/// Issue 23 item 2: the `document.cookie` script is strict where it writes.
@Suite("document.cookie plan: data, omissions, encoding")
struct DocumentCookiePlanTests {
    let page = url("https://app.example/")

    @Test("Any stored value reaches the page as data, byte for byte (evaluated in node)")
    func storedValuesAsData() throws {
        let jar = makeFixedJar()
        let headers = [
            "prefs=\"a b\\054c\"", "json={\"k\":[1,2]}", "bs=a\\\\b\\", "quote=A\"B", "open=\"zz", "space=zzz ",
            "\"a=1", "foo bar=2", "end=</script><!--", "ls=\u{2028}\u{2029}", "tmpl=${x}`", "city=春节", "tab=a\tb",
        ]
        #expect(jar.capture(setCookieHeaders: headers, from: page).isEmpty)
        let expected = jar.cookies(for: page).map { $0.name + "=" + $0.value + "; path=/" }
        #expect(expected.count == headers.count)
        let plan = jar.documentCookiePlan(for: page)
        #expect(plan.omitted.isEmpty)
        #expect(plan.assignments == expected)
        let outcome = try CookieScriptRunner.run(plan.script())
        #expect(outcome.assigned == expected)
        #expect(outcome.allStrings)
        #expect(outcome.completion == "undefined")
    }

    @Test(
        "A cookie document.cookie cannot express is left out and reported, never truncated",
        arguments: [
            (
                Cookie(name: "h", value: "1", domain: "app.example", isHTTPOnly: true),
                DocumentCookieOmission.Reason.httpOnly
            ),
            (Cookie(name: "v", value: "a;b", domain: "app.example"), .semicolon),
            (Cookie(name: "n;x", value: "1", domain: "app.example"), .semicolon),
            (Cookie(name: "p", value: "1", domain: "app.example", path: "/a;b"), .semicolon),
            (Cookie(name: "cr", value: "a\r\nSet-Cookie: x=1", domain: "app.example"), .controlCharacter),
            (Cookie(name: "nul", value: "a\u{0}", domain: "app.example"), .controlCharacter),
            (Cookie(name: "ws", value: " a", domain: "app.example"), .outerWhitespace),
            (Cookie(name: "ws2 ", value: "a", domain: "app.example"), .outerWhitespace),
            (Cookie(name: "", value: "a", domain: "app.example"), .invalidName),
            (Cookie(name: "a=b", value: "c", domain: "app.example"), .invalidName),
            (Cookie(name: "rel", value: "1", domain: "app.example", path: "docs"), .invalidAttribute),
            (Cookie(name: "dom", value: "1", domain: "app example"), .invalidAttribute),
            (
                Cookie(name: "__Host-a", value: "1", domain: "app.example", isHostOnly: false, isSecure: true),
                .prefixNotSettable
            ),
            (
                Cookie(name: "__Host-b", value: "1", domain: "app.example", path: "/x", isSecure: true),
                .prefixNotSettable
            ),
            (Cookie(name: "__Host-c", value: "1", domain: "app.example"), .prefixNotSettable),
            (Cookie(name: "__secure-d", value: "1", domain: "app.example"), .prefixNotSettable),
        ])
    func omittedAndReported(_ cookie: Cookie, _ reason: DocumentCookieOmission.Reason) throws {
        let good = Cookie(name: "good", value: "1", domain: "app.example")
        let plan = DocumentCookieScript.plan(for: [good, cookie], pageURL: page, now: cookieEpoch)
        #expect(plan.assignments == ["good=1; path=/"])
        #expect(plan.omitted.map(\.reason) == [reason])
        #expect(plan.omitted.first?.cookie.name == cookie.name)
        #expect(
            !String(describing: plan.omitted).contains(cookie.value) || cookie.value.count < 2,
            "the report names the cookie, never its value")
    }

    @Test("A __Host- cookie cannot be set from an http page: reported there, assigned on the https page")
    func hostPrefixFromHTTPPage() throws {
        let jar = makeFixedJar()
        jar.capture(
            setCookieHeaders: ["__Host-sid=1; Secure; Path=/", "plain=2; Secure"], from: url("https://app.example/"))
        let http = jar.documentCookiePlan(for: url("http://app.example/"))
        #expect(http.assignments.isEmpty)
        #expect(
            http.omitted == [
                DocumentCookieOmission(
                    cookie: CookieKey(name: "__Host-sid", domain: "app.example", path: "/"),
                    reason: .prefixNotSettable)
            ],
            "a Secure cookie without a prefix is simply not for an http page (R41)")
        let https = jar.documentCookiePlan(for: url("https://app.example/"))
        #expect(https.assignments == ["__Host-sid=1; path=/; secure", "plain=2; path=/; secure"])
        #expect(https.omitted.isEmpty)
    }

    @Test("Expired cookies and cookies of other hosts are neither assigned nor reported")
    func notForThisPage() {
        let plan = DocumentCookieScript.plan(
            for: [
                Cookie(
                    name: "old", value: "1", domain: "app.example", expires: cookieEpoch.addingTimeInterval(-1),
                    isHTTPOnly: true),
                Cookie(name: "other", value: "a;b", domain: "other.example"),
            ], pageURL: page, now: cookieEpoch)
        #expect(plan.assignments.isEmpty)
        #expect(plan.omitted.isEmpty)
    }

    @Test("The encoding choice applies to names and values in the script as in the header")
    func encodingChoice() {
        let cookie = Cookie(name: "名", value: "Zürich 1", domain: "app.example")
        #expect(
            DocumentCookieScript.assignments(for: [cookie], pageURL: page, now: cookieEpoch)
                == ["名=Zürich 1; path=/"])
        #expect(
            DocumentCookieScript.assignments(
                for: [cookie], pageURL: page, now: cookieEpoch, encoding: .percentEncodedNonASCII)
                == ["%E5%90%8D=Z%C3%BCrich 1; path=/"])
        #expect(CookieRules.cookieString([cookie], encoding: .percentEncodedNonASCII) == "%E5%90%8D=Z%C3%BCrich 1")
        #expect(CookieRules.cookieString([cookie]) == "名=Zürich 1")
    }
}
