import Foundation
import Testing

@testable import BridgeCookies

@Suite("Set-Cookie parsing (RFC 6265 5.2)")
struct SetCookieParserTests {
    @Test(
        "RFC 6265 5.2 steps 2 and 5 ignore a header without '=' or with an empty name",
        arguments: [
            "novalue", "=value", "  =value; Path=/", "", "; Path=/",
        ])
    func ignoresMalformed(_ header: String) {
        #expect(SetCookieParser.parse(header) == nil)
    }

    @Test("RFC 6265 5.2 splits name and value at the first '=' and trims WSP")
    func nameValue() throws {
        let parsed = try #require(SetCookieParser.parse(" \tsid = a=b=c \t; Path=/"))
        #expect(parsed.name == "sid")
        #expect(parsed.value == "a=b=c")
        let empty = try #require(SetCookieParser.parse("flag="))
        #expect(empty.value == "")
        let quoted = try #require(SetCookieParser.parse("q=\"quoted\""))
        #expect(quoted.value == "\"quoted\"")
    }

    @Test("RFC 6265 5.2 attribute names are case-insensitive and unknown attributes are ignored")
    func caseInsensitiveAttributes() throws {
        let parsed = try #require(
            SetCookieParser.parse(
                "a=1; PATH=/x; dOmAiN=Example.COM; SECURE; httponly; SameSite=lax; Priority=High; Partitioned"))
        #expect(parsed.path == "/x")
        #expect(parsed.domain == "example.com")
        #expect(parsed.isSecure)
        #expect(parsed.isHTTPOnly)
        #expect(parsed.sameSite == .lax)
    }

    @Test("RFC 6265 5.2 the last occurrence of an attribute wins")
    func lastWins() throws {
        let parsed = try #require(
            SetCookieParser.parse(
                "a=1; Path=/one; Path=/two; Domain=a.example; Domain=b.example; Max-Age=10; Max-Age=20; SameSite=Strict; SameSite=Lax"
            ))
        #expect(parsed.path == "/two")
        #expect(parsed.domain == "b.example")
        #expect(parsed.maxAge == 20)
        #expect(parsed.sameSite == .lax)
    }

    @Test("RFC 6265 5.2.1 Expires that fails to parse is ignored, keeping an earlier valid one")
    func expiresIgnoredWhenInvalid() throws {
        let parsed = try #require(SetCookieParser.parse("a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Expires=soon"))
        #expect(parsed.expires == utc(2031, 1, 1))
        let none = try #require(SetCookieParser.parse("a=1; Expires=never"))
        #expect(none.expires == nil)
    }

    @Test(
        "RFC 6265 5.2.2 Max-Age must be a DIGIT or '-' followed by DIGITs",
        arguments: [
            ("Max-Age=3600", Int64?.some(3600)), ("Max-Age=0", 0), ("Max-Age=-1", -1),
            ("Max-Age=+5", nil), ("Max-Age=1a", nil), ("Max-Age=", nil), ("Max-Age=-", nil),
            ("Max-Age= 7 ", 7), ("Max-Age=1.5", nil),
            ("Max-Age=99999999999999999999999", Int64.max),
        ])
    func maxAgeSyntax(_ attribute: String, _ expected: Int64?) throws {
        let parsed = try #require(SetCookieParser.parse("a=1; " + attribute))
        #expect(parsed.maxAge == expected)
    }

    @Test("RFC 6265 5.2.3 Domain drops one leading dot, lowercases, and an empty Domain is ignored")
    func domainAttribute() throws {
        #expect(SetCookieParser.parse("a=1; Domain=.Shop.Example")?.domain == "shop.example")
        #expect(SetCookieParser.parse("a=1; Domain=")?.domain == nil)
        // `.` is not empty: the dot removed leaves an empty Domain, the last one (host-only, §5.3 step 6).
        #expect(SetCookieParser.parse("a=1; Domain=.")?.domain == "")
        #expect(SetCookieParser.parse("a=1; Domain=x.example; Domain=")?.domain == "x.example")
    }

    @Test("RFC 6265 5.2.4 Path that is empty or does not start with '/' means default-path")
    func pathAttribute() throws {
        #expect(SetCookieParser.parse("a=1; Path=/docs")?.path == "/docs")
        #expect(SetCookieParser.parse("a=1; Path=")?.path == nil)
        #expect(SetCookieParser.parse("a=1; Path=docs")?.path == nil)
        #expect(SetCookieParser.parse("a=1; Path=/docs; Path=relative")?.path == nil)
    }

    @Test(
        "RFC 6265bis SameSite keeps Strict, Lax and None; an unknown value counts as absent",
        arguments: [
            ("SameSite=Strict", CookieSameSite?.some(.strict)), ("samesite=LAX", .lax),
            ("SameSite=none", CookieSameSite.none),
            ("SameSite=Extended", nil), ("SameSite", nil), ("SameSite=Strict; SameSite=bogus", nil),
        ])
    func sameSite(_ attributes: String, _ expected: CookieSameSite?) throws {
        let parsed = try #require(SetCookieParser.parse("a=1; " + attributes))
        #expect(parsed.sameSite == expected)
    }

    @Test("Folded Set-Cookie values split at commas that start a new cookie, not inside dates or values")
    func splitsFoldedHeaders() {
        let folded =
            "a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Path=/, b=2, c=x,y; Path=/c,d=4;Expires=Wed, 01-Jan-2031 00:00:00 GMT"
        #expect(
            SetCookieParser.splitFolded(folded) == [
                "a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Path=/",
                "b=2",
                "c=x,y; Path=/c",
                "d=4;Expires=Wed, 01-Jan-2031 00:00:00 GMT",
            ])
        #expect(SetCookieParser.splitFolded("single=1") == ["single=1"])
        #expect(SetCookieParser.splitFolded("") == [])
    }
}
