import Foundation
import Testing

@testable import BridgeCookies

/// RFC 6265 §5.3, one named row per rule of each storage step. Each row applies its
/// `Set-Cookie` headers in order, 10 s apart, and compares the jar (and the refusals) after.
@Suite("RFC 6265 5.3 table: storage model")
struct RFC6265StorageTableTests {
    struct Input: Sendable {
        var url: String
        var headers: [String]
        var source: CookieSource = .http
        init(_ url: String, _ headers: [String], source: CookieSource = .http) {
            self.url = url
            self.headers = headers
            self.source = source
        }
    }

    struct Outcome: Sendable, Equatable, CustomStringConvertible {
        /// Each stored cookie as `name=value host|domain=d path=p session|expires=+s created=+s [secure] [httponly]`.
        var stored: [String]
        var refused: [CookieError] = []
        var description: String { "stored \(stored), refused \(refused)" }
    }

    static func stored(_ cookies: String..., refused: [CookieError] = []) -> Outcome {
        Outcome(stored: cookies, refused: refused)
    }

    static func render(_ cookie: Cookie) -> String {
        func offset(_ date: Date?) -> String {
            guard let date else { return "?" }
            if date == .distantPast { return "past" }
            return "+" + String(Int(date.timeIntervalSince(cookieEpoch)))
        }
        var text =
            "\(cookie.name)=\(cookie.value) \(cookie.isHostOnly ? "host" : "domain")=\(cookie.domain) path=\(cookie.path)"
        text += cookie.expires.map { " expires=\(offset($0))" } ?? " session"
        text += " created=\(offset(cookie.creationTime))"
        if cookie.isSecure { text += " secure" }
        if cookie.isHTTPOnly { text += " httponly" }
        return text
    }

    @Test(
        "RFC 6265 5.3 storage, every step",
        arguments: [
            // Step 1: the user agent may ignore a cookie in its entirety (here: the size limit).
            Row(
                "1 over 4096 bytes of name and value: ignored",
                Input("https://a.example/", ["n=" + String(repeating: "v", count: 4096)]),
                stored(refused: [.cookieTooLarge(name: "n", bytes: 4097, limit: 4096)])),
            // Step 2: name and value as parsed; creation-time and last-access-time now.
            Row(
                "2 name and value as parsed, created now", Input("https://a.example/", ["sid = \"a b\\054c\" "]),
                stored("sid=\"a b\\054c\" host=a.example path=/ session created=+0")),
            // Step 3: Max-Age, then Expires, else a session cookie.
            Row(
                "3 no Max-Age or Expires: session cookie", Input("https://a.example/", ["a=1"]),
                stored("a=1 host=a.example path=/ session created=+0")),
            Row(
                "3 Max-Age: persistent, now + delta", Input("https://a.example/", ["a=1; Max-Age=60"]),
                stored("a=1 host=a.example path=/ expires=+60 created=+0")),
            Row(
                "3 Expires: persistent", Input("https://a.example/", ["a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT"]),
                stored("a=1 host=a.example path=/ expires=+31536000 created=+0")),
            Row(
                "3 Max-Age beats an earlier Expires",
                Input("https://a.example/", ["a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Max-Age=50"]),
                stored("a=1 host=a.example path=/ expires=+50 created=+0")),
            Row(
                "3 Max-Age beats a later Expires",
                Input("https://a.example/", ["a=1; Max-Age=50; Expires=Wed, 01 Jan 2031 00:00:00 GMT"]),
                stored("a=1 host=a.example path=/ expires=+50 created=+0")),
            Row("3 Max-Age=0 deletes", Input("https://a.example/", ["a=1", "a=; Max-Age=0"]), stored()),
            Row("3 negative Max-Age deletes", Input("https://a.example/", ["a=1", "a=; Max-Age=-1"]), stored()),
            Row(
                "3 past Expires deletes",
                Input("https://a.example/", ["a=1", "a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT"]), stored()),
            Row("3 an expired cookie alone is not stored", Input("https://a.example/", ["a=1; Max-Age=0"]), stored()),
            // Step 4: the Domain attribute, or the empty string.
            Row(
                "4 Domain attribute taken (leading dot dropped by 5.2.3)",
                Input("https://www.a.example/", ["a=1; Domain=.A.example"]),
                stored("a=1 domain=a.example path=/ session created=+0")),
            Row(
                "4, 6 the last Domain attribute is taken: Domain=. (empty) makes a host-only cookie",
                Input("https://www.a.example/", ["a=1; Domain=a.example; Domain=."]),
                stored("a=1 host=www.a.example path=/ session created=+0")),
            // Step 5: public suffixes.
            Row(
                "5 a public-suffix Domain is ignored", Input("https://a.co.uk/", ["a=1; Domain=co.uk"]),
                stored(refused: [.publicSuffix(domain: "co.uk")])),
            Row(
                "5 a single-label Domain is ignored", Input("https://a.example/", ["a=1; Domain=example"]),
                stored(refused: [.publicSuffix(domain: "example")])),
            Row(
                "5 a public-suffix Domain equal to the host makes a host-only cookie",
                Input("https://co.uk/", ["a=1; Domain=co.uk"]),
                stored("a=1 host=co.uk path=/ session created=+0")),
            // Step 6: the request host must domain-match; host-only otherwise.
            Row(
                "6 no Domain: host-only for the request host", Input("https://WWW.A.example/", ["a=1"]),
                stored("a=1 host=www.a.example path=/ session created=+0")),
            Row(
                "6 Domain equal to the host: a domain cookie", Input("https://a.example/", ["a=1; Domain=a.example"]),
                stored("a=1 domain=a.example path=/ session created=+0")),
            Row(
                "6 Domain of a parent: a domain cookie", Input("https://x.y.a.example/", ["a=1; Domain=a.example"]),
                stored("a=1 domain=a.example path=/ session created=+0")),
            Row(
                "6 Domain of a sibling: ignored", Input("https://x.a.example/", ["a=1; Domain=y.a.example"]),
                stored(refused: [.domainMismatch(domain: "y.a.example", host: "x.a.example")])),
            Row(
                "6 Domain that is only a string suffix: ignored",
                Input("https://bada.example/", ["a=1; Domain=a.example"]),
                stored(refused: [.domainMismatch(domain: "a.example", host: "bada.example")])),
            Row(
                "6 IP host: Domain equal to it stays host-only", Input("https://192.0.2.1/", ["a=1; Domain=192.0.2.1"]),
                stored("a=1 host=192.0.2.1 path=/ session created=+0")),
            // Step 7: Path or the default-path.
            Row(
                "7 no Path: the default-path", Input("https://a.example/docs/page", ["a=1"]),
                stored("a=1 host=a.example path=/docs session created=+0")),
            Row(
                "7 relative Path: the default-path", Input("https://a.example/docs/page", ["a=1; Path=x"]),
                stored("a=1 host=a.example path=/docs session created=+0")),
            Row(
                "7 Path taken as given", Input("https://a.example/docs/page", ["a=1; Path=/other"]),
                stored("a=1 host=a.example path=/other session created=+0")),
            // Step 8: Secure (6265bis: only from a secure channel).
            Row(
                "8 Secure over https", Input("https://a.example/", ["a=1; Secure"]),
                stored("a=1 host=a.example path=/ session created=+0 secure")),
            Row(
                "8 Secure over http: ignored (6265bis)", Input("http://a.example/", ["a=1; Secure"]),
                stored(refused: [.secureFromInsecureOrigin(name: "a")])),
            // Step 9: HttpOnly.
            Row(
                "9 HttpOnly", Input("https://a.example/", ["a=1; HttpOnly"]),
                stored("a=1 host=a.example path=/ session created=+0 httponly")),
            // Step 10: a non-HTTP API cannot set an HttpOnly cookie.
            Row(
                "10 HttpOnly from a script: ignored", Input("https://a.example/", ["a=1; HttpOnly"], source: .nonHTTP),
                stored(refused: [.httpOnlyFromNonHTTPSource(name: "a")])),
            Row(
                "10 a script may set other cookies", Input("https://a.example/", ["a=1"], source: .nonHTTP),
                stored("a=1 host=a.example path=/ session created=+0")),
            // Step 11: the same name, domain and path replaces, keeping the creation-time.
            Row(
                "11 replacement keeps the old creation-time", Input("https://a.example/", ["a=1", "a=2"]),
                stored("a=2 host=a.example path=/ session created=+0")),
            Row(
                "11 the host-only flag is not part of the identity",
                Input("https://a.example/", ["a=1", "a=2; Domain=a.example"]),
                stored("a=2 domain=a.example path=/ session created=+0")),
            Row(
                "11 another path is another cookie", Input("https://a.example/", ["a=1; Path=/", "a=2; Path=/x"]),
                stored("a=1 host=a.example path=/ session created=+0", "a=2 host=a.example path=/x session created=+10")
            ),
            Row(
                "11 names are case-sensitive", Input("https://a.example/", ["a=1", "A=2"]),
                stored("A=2 host=a.example path=/ session created=+10", "a=1 host=a.example path=/ session created=+0")),
            // Step 12: inserted; values as received.
            Row(
                "12 values are inserted as received", Input("https://a.example/", ["q=A\"B", "\"n=\"zz", "c=春节"]),
                stored(
                    "\"n=\"zz host=a.example path=/ session created=+10",
                    "c=春节 host=a.example path=/ session created=+20",
                    "q=A\"B host=a.example path=/ session created=+0")),
        ])
    func storage(_ row: Row<Input, Outcome>) {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        var refused: [CookieError] = []
        for header in row.input.headers {
            do throws(CookieError) {
                try jar.setCookie(header, from: url(row.input.url), source: row.input.source)
            } catch {
                refused.append(error)
            }
            clock.advance(by: 10)
        }
        #expect(Outcome(stored: jar.cookies.map(Self.render), refused: refused) == row.expected)
    }

    @Test("RFC 6265 5.3 step 11 a non-HTTP source cannot replace or delete an HttpOnly cookie")
    func step11NonHTTP() throws {
        let jar = makeFixedJar()
        try jar.setCookie("a=1; HttpOnly", from: url("https://a.example/"))
        #expect(throws: CookieError.overwritesHTTPOnly(name: "a")) {
            try jar.setCookie("a=2", from: url("https://a.example/"), source: .nonHTTP)
        }
        #expect(throws: CookieError.overwritesHTTPOnly(name: "a")) {
            try jar.setCookie("a=; Max-Age=0", from: url("https://a.example/"), source: .nonHTTP)
        }
        #expect(jar.cookies.map(\.value) == ["1"])
    }

    @Test("RFC 6265 5.3 expired cookies are evicted; a cookie just stored is never evicted for itself")
    func eviction() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar(CookieJar.Configuration(maxCookiesPerDomain: 2))
        jar.capture(setCookieHeaders: ["old=1; Max-Age=5", "keep=2"], from: url("https://a.example/"))
        clock.advance(by: 10)
        jar.capture(setCookieHeaders: ["new=3"], from: url("https://a.example/"))
        #expect(jar.cookies.map(\.name) == ["keep", "new"])
    }
}
