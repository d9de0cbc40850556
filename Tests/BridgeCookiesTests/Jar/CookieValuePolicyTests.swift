import Foundation
import Testing

@testable import BridgeCookies

@Suite("Cookie value policy (RFC 6265 4.1.1)")
struct CookieValuePolicyTests {
    @Test("RFC 6265 4.1.1 every cookie-octet is kept as it is")
    func cookieOctetsKept() throws {
        #expect(allCookieOctets.count == 90)
        #expect(try CookieValuePolicy.normalizedValue(allCookieOctets, cookieName: "n") == allCookieOctets)
        #expect(try CookieValuePolicy.normalizedValue("", cookieName: "n") == "")
        #expect(try CookieValuePolicy.normalizedValue("it's", cookieName: "n") == "it's")
        #expect(try CookieValuePolicy.normalizedValue("YWJjZA==", cookieName: "n") == "YWJjZA==")
    }

    @Test(
        "RFC 6265 5.2 what a server should not send but a browser keeps is kept as it is: quotes anywhere, space, ',', '\\', HTAB, non-ASCII",
        arguments: [
            "\"abc\"", "\"\"", "\"", "a\"b", "\"a\"b\"", "\"abc", "abc\"", "a b", "a,b", "a\\b", "a\tb",
            "\"a b\\054c\"", "Zürich", "東京", "😀", "e\u{301}", "100%", "\u{2028}", "\u{A0}",
        ])
    func keptAsReceived(_ value: String) throws {
        #expect(try CookieValuePolicy.normalizedValue(value, cookieName: "n") == value)
        #expect(try CookieValuePolicy.normalizedName("k" + value) == "k" + value)
    }

    @Test(
        "RFC 6265 5.2 and 6265bis 5.6 a ';', a control other than HTAB or outer whitespace in a value is refused, never encoded"
    )
    func refusedCharacters() {
        var refused: [Unicode.Scalar] = [";", "\u{7F}"]
        for value in UInt32(0)..<0x20 where value != 0x09 {
            if let scalar = Unicode.Scalar(value) { refused.append(scalar) }
        }
        #expect(refused.count == 33)
        for scalar in refused {
            let value = "a" + String(scalar) + "b"
            #expect(throws: CookieError.invalidCookieValue(name: "n")) {
                try CookieValuePolicy.normalizedValue(value, cookieName: "n")
            }
        }
        for outer in [" a", "a ", "\ta", "a\t"] {
            #expect(throws: CookieError.invalidCookieValue(name: "n")) {
                try CookieValuePolicy.normalizedValue(outer, cookieName: "n")
            }
        }
    }

    @Test(
        "Percent-encoding of non-ASCII (the opt-in output form, and paths) is UTF-8 and idempotent",
        arguments: [
            ("Zürich", "Z%C3%BCrich"), ("東京", "%E6%9D%B1%E4%BA%AC"), ("😀", "%F0%9F%98%80"),
            ("e\u{301}", "e%CC%81"), ("100%", "100%"), ("\u{2028}", "%E2%80%A8"), ("\u{A0}", "%C2%A0"),
        ])
    func percentEncoding(_ raw: String, _ encoded: String) throws {
        let value = CookieValuePolicy.percentEncodingNonASCII(raw)
        #expect(value == encoded)
        #expect(CookieValuePolicy.percentEncodingNonASCII(value) == value)
        #expect(try CookieValuePolicy.normalizedPath("/" + raw, cookieName: "n") == "/" + encoded)
        #expect(value.unicodeScalars.allSatisfy { $0.isASCII })
    }

    @Test(
        "Names: not empty, no '=', ';', control other than HTAB or outer whitespace",
        arguments: [
            "", "a=b", "a;b", "a\u{0}b", "a\nb", " a", "a ", "\ta",
        ])
    func invalidNames(_ name: String) {
        #expect(throws: CookieError.invalidCookieName(name)) { try CookieValuePolicy.normalizedName(name) }
    }

    @Test(
        "Paths: start with '/', no control or ';' (field case R31 attribute injection)",
        arguments: [
            "", "docs", "/x;domain=example.org", "/a\u{0}", "/a\u{7F}", "/a\nb",
        ])
    func invalidPaths(_ path: String) {
        #expect(throws: CookieError.invalidCookieAttribute(name: "n", attribute: "path")) {
            try CookieValuePolicy.normalizedPath(path, cookieName: "n")
        }
    }

    @Test(
        "Domains are lowercased ASCII names or IP literals, one leading dot removed",
        arguments: [
            (".Example.COM", "example.com", true), ("example.com", "example.com", false), ("[::1]", "::1", false),
            ("xn--bcher-kva.de", "xn--bcher-kva.de", false), ("my_host.local", "my_host.local", false),
        ])
    func domains(_ input: String, _ domain: String, _ dotted: Bool) throws {
        let result = try CookieValuePolicy.normalizedDomain(input, cookieName: "n")
        #expect(result.domain == domain)
        #expect(result.hadLeadingDot == dotted)
    }

    @Test(
        "Domains that are empty, malformed or not ASCII are refused",
        arguments: [
            "", ".", "..example.com", "example..com", "example.com.", "bücher.de", "exa mple.com", "a;b.com", "a/b.com",
        ])
    func invalidDomains(_ domain: String) {
        #expect(throws: CookieError.invalidCookieAttribute(name: "n", attribute: "domain")) {
            try CookieValuePolicy.normalizedDomain(domain, cookieName: "n")
        }
    }

    @Test("The jar applies the policy on entry: only what no Set-Cookie can carry is refused")
    func jarAppliesPolicy() throws {
        let jar = makeFixedJar()
        let rejected = jar.capture(
            setCookieHeaders: ["a=hello world", "b=x\\y", "c=Zürich", "d=\"quoted\"", "e=x\u{1}y"],
            from: url("https://example.com/"))
        #expect(rejected.map(\.reason) == [.invalidCookieValue(name: "e")])
        #expect(jar.cookieHeader(for: url("https://example.com/")) == "a=hello world; b=x\\y; c=Zürich; d=\"quoted\"")
        #expect(throws: CookieError.invalidCookieName("a=b")) {
            try jar.set(Cookie(name: "a=b", value: "1", domain: "example.com"))
        }
    }
}
