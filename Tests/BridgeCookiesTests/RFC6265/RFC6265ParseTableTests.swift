import Foundation
import Testing

@testable import BridgeCookies

/// RFC 6265 §5.2, one named row per rule of the name-value pair and of each attribute.
@Suite("RFC 6265 5.2 table: Set-Cookie parsing")
struct RFC6265ParseTableTests {
    static func parsed(
        _ name: String, _ value: String, expires: Date? = nil, maxAge: Int64? = nil, domain: String? = nil,
        path: String? = nil, secure: Bool = false, httpOnly: Bool = false,
        sameSite: CookieSameSite? = nil
    ) -> ParsedSetCookie? {
        ParsedSetCookie(
            name: name, value: value, expires: expires, maxAge: maxAge, domain: domain, path: path,
            isSecure: secure, isHTTPOnly: httpOnly, sameSite: sameSite)
    }

    @Test(
        "RFC 6265 5.2 the name-value pair",
        arguments: [
            Row("1 no ';': the whole string is the pair", "a=1", parsed("a", "1")),
            Row("1 the pair ends at the first ';'", "a=1;b=2", parsed("a", "1")),
            Row("2 no '=': ignored", "novalue", nil),
            Row("2 no '=' before the ';': ignored", "novalue; a=b", nil),
            Row("3 split at the first '='", "a=b=c", parsed("a", "b=c")),
            Row("4 WSP around name and value removed", " \ta \t= \t1 \t", parsed("a", "1")),
            Row("4 inner WSP kept", "foo bar=x  y", parsed("foo bar", "x  y")),
            Row("5 empty name: ignored", "=1", nil),
            Row("5 whitespace-only name: ignored", " \t=1", nil),
            Row("empty value kept", "a=", parsed("a", "")),
            Row("quotes are part of the value", "a=\"1\"", parsed("a", "\"1\"")),
            Row("unbalanced quote kept", "a=\"zz", parsed("a", "\"zz")),
            Row("inner quote kept", "a=A\"B", parsed("a", "A\"B")),
            Row("quote in the name kept", "\"a=b", parsed("\"a", "b")),
            Row("comma and space kept", "z=y, a=b", parsed("z", "y, a=b")),
            Row("backslash and octal escape kept", "prefs=\"a b\\054c\"", parsed("prefs", "\"a b\\054c\"")),
            Row("non-ASCII kept", "foo=春节", parsed("foo", "春节")),
            Row("a ';' after a combining mark still ends the pair", "a=x;\u{301}b", parsed("a", "x")),
        ])
    func nameValuePair(_ row: Row<String, ParsedSetCookie?>) {
        #expect(SetCookieParser.parse(row.input) == row.expected)
    }

    @Test(
        "RFC 6265 5.2 attributes: each one, case, last wins, unknown ignored",
        arguments: [
            // General rules of the unparsed-attributes loop.
            Row(
                "attribute names are case-insensitive", "a=1; pAtH=/x; SECURE",
                parsed("a", "1", path: "/x", secure: true)),
            Row("WSP around attribute names and values removed", "a=1;  Path  =  /x  ", parsed("a", "1", path: "/x")),
            Row("empty attributes skipped", "a=1;;; Secure;", parsed("a", "1", secure: true)),
            Row("unknown attributes ignored", "a=1; Foo=bar; Baz", parsed("a", "1")),
            Row("the last attribute of a name wins", "a=1; Path=/one; Path=/two", parsed("a", "1", path: "/two")),
            // §5.2.1 Expires.
            Row(
                "5.2.1 Expires parsed by 5.1.1", "a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT",
                parsed("a", "1", expires: utc(2031, 1, 1))),
            Row("5.2.1 an unparseable Expires is ignored", "a=1; Expires=soon", parsed("a", "1")),
            Row(
                "5.2.1 an unparseable Expires keeps an earlier one", "a=1; Expires=01 Jan 2031 00:00:00; Expires=x",
                parsed("a", "1", expires: utc(2031, 1, 1))),
            // §5.2.2 Max-Age.
            Row("5.2.2 Max-Age digits", "a=1; Max-Age=3600", parsed("a", "1", maxAge: 3600)),
            Row("5.2.2 Max-Age zero", "a=1; Max-Age=0", parsed("a", "1", maxAge: 0)),
            Row("5.2.2 Max-Age negative", "a=1; Max-Age=-5", parsed("a", "1", maxAge: -5)),
            Row("5.2.2 Max-Age with '+' ignored", "a=1; Max-Age=+5", parsed("a", "1")),
            Row("5.2.2 Max-Age with a non-digit ignored", "a=1; Max-Age=5s", parsed("a", "1")),
            Row("5.2.2 empty Max-Age ignored", "a=1; Max-Age=", parsed("a", "1")),
            Row("5.2.2 huge Max-Age saturates", "a=1; Max-Age=99999999999999999999", parsed("a", "1", maxAge: .max)),
            // §5.2.3 Domain.
            Row("5.2.3 Domain lowercased", "a=1; Domain=Example.COM", parsed("a", "1", domain: "example.com")),
            Row("5.2.3 one leading dot removed", "a=1; Domain=.example.com", parsed("a", "1", domain: "example.com")),
            Row("5.2.3 empty Domain ignored", "a=1; Domain=", parsed("a", "1")),
            Row(
                "5.2.3 empty Domain keeps an earlier one", "a=1; Domain=x.example; Domain=",
                parsed("a", "1", domain: "x.example")),
            Row(
                "5.2.3 Domain=. is a Domain attribute with an empty value, the last one",
                "a=1; Domain=x.example; Domain=.", parsed("a", "1", domain: "")),
            // 6265bis 5.6: an attribute value over 1024 octets is ignored (WPT cookies/size/attributes).
            Row(
                "6265bis 5.6 a Path of 1024 octets is taken", "a=1; Path=/" + String(repeating: "p", count: 1023),
                parsed("a", "1", path: "/" + String(repeating: "p", count: 1023))),
            Row(
                "6265bis 5.6 a Path over 1024 octets is ignored, an earlier one wins",
                "a=1; Path=/docs; Path=/" + String(repeating: "p", count: 1024), parsed("a", "1", path: "/docs")),
            Row(
                "6265bis 5.6 a Path over 1024 octets is ignored, a later one wins",
                "a=1; Path=/" + String(repeating: "p", count: 1024) + "; Path=/docs", parsed("a", "1", path: "/docs")),
            Row(
                "6265bis 5.6 a Domain over 1024 octets is ignored",
                "a=1; Domain=x.example; Domain=" + String(repeating: "d", count: 1021) + ".net",
                parsed("a", "1", domain: "x.example")),
            Row(
                "6265bis 5.6 a Max-Age over 1024 octets is ignored, the cookie is not",
                "a=1; Max-Age=" + String(repeating: "1", count: 1025), parsed("a", "1")),
            // §5.2.4 Path.
            Row("5.2.4 Path starting with '/'", "a=1; Path=/docs", parsed("a", "1", path: "/docs")),
            Row("5.2.4 empty Path is the default-path", "a=1; Path=", parsed("a", "1")),
            Row("5.2.4 relative Path is the default-path", "a=1; Path=docs", parsed("a", "1")),
            Row("5.2.4 a later relative Path resets to the default-path", "a=1; Path=/docs; Path=x", parsed("a", "1")),
            // §5.2.5 Secure and §5.2.6 HttpOnly: their values are ignored.
            Row("5.2.5 Secure", "a=1; Secure", parsed("a", "1", secure: true)),
            Row("5.2.5 Secure with a value is still Secure", "a=1; Secure=no", parsed("a", "1", secure: true)),
            Row("5.2.6 HttpOnly", "a=1; HttpOnly", parsed("a", "1", httpOnly: true)),
            Row(
                "5.2.6 HttpOnly with a value is still HttpOnly", "a=1; HttpOnly=false", parsed("a", "1", httpOnly: true)
            ),
            // 6265bis SameSite.
            Row("6265bis SameSite=Lax", "a=1; SameSite=lax", parsed("a", "1", sameSite: .lax)),
            Row("6265bis unknown SameSite counts as absent", "a=1; SameSite=Strict; SameSite=Bogus", parsed("a", "1")),
        ])
    func attributes(_ row: Row<String, ParsedSetCookie?>) {
        #expect(SetCookieParser.parse(row.input) == row.expected)
    }
}
