import Foundation
import Testing

@testable import BridgeCookies

/// Kind of fault: memory a header decides. The size limit counted name and value only, so a
/// `Path` of any length was stored: one response of 100 cookies with 256 KiB paths kept 12.5 MiB
/// in the jar, and every `Cookie` header and save walked them (found by attacking the cookie
/// layer). An attribute value over 1024 octets is ignored (draft rfc6265bis §5.6), and no other
/// source can store a longer path or domain.
@Suite("Cookie attribute sizes (rfc6265bis 5.6)")
struct CookieAttributeSizeTests {
    @Test("a response's long paths are ignored: the jar holds at most 1024 bytes of path a cookie")
    func longPathsFromAResponse() {
        let jar = makeFixedJar()
        let site = url("https://app.example/a/b")
        let long = "/" + String(repeating: "p", count: 256 << 10)
        let headers = (0..<100).map { "c\($0)=1; Path=\(long)\($0)" + ($0 % 2 == 0 ? "; Domain=app.example" : "") }
        #expect(jar.capture(setCookieHeaders: headers, from: site).isEmpty)
        let held = jar.cookies.reduce(0) { $0 + $1.path.utf8.count }
        #expect(held <= jar.cookies.count * 1024, "paths of \(held >> 10) KiB kept for \(jar.cookies.count) cookies")
        #expect(jar.cookies.allSatisfy { $0.path == "/a" }, "the default path, as if the attribute were not there")
    }

    @Test("a path or domain over 1024 bytes is refused from set(_:) (the app, the web view's store, a file)")
    func longAttributesFromSet() throws {
        let jar = makeFixedJar()
        let path = "/" + String(repeating: "p", count: 1024)
        #expect(throws: CookieError.invalidCookieAttribute(name: "a", attribute: "path")) {
            try jar.set(Cookie(name: "a", value: "1", domain: "app.example", path: path))
        }
        // Percent-encoding counts: 342 two-byte characters are 2052 bytes on the wire.
        #expect(throws: CookieError.invalidCookieAttribute(name: "a", attribute: "path")) {
            try jar.set(
                Cookie(name: "a", value: "1", domain: "app.example", path: "/" + String(repeating: "é", count: 342)))
        }
        #expect(throws: CookieError.invalidCookieAttribute(name: "a", attribute: "domain")) {
            try jar.set(Cookie(name: "a", value: "1", domain: String(repeating: "d", count: 1021) + ".net"))
        }
        try jar.set(Cookie(name: "a", value: "1", domain: "app.example", path: String(path.dropLast())))
        #expect(jar.cookies.count == 1, "1024 bytes are taken")
    }
}

/// Kind of fault: the jar and the web view disagreeing on a host. Foundation's `URL.host` keeps
/// an IP address as written, WebKit's URL parser writes one form (URL Standard), so `[0:0::1]`
/// and `[::1]`, or `127.1` and `127.0.0.1`, were different hosts to the jar (found by attacking
/// the cookie layer).
@Suite("Cookie hosts: IP addresses in the URL Standard's form")
struct CookieIPHostTests {
    @Test("an IP address in another spelling is the same host")
    func spellings() throws {
        let jar = makeFixedJar()
        try jar.setCookie("c=3", from: url("http://[::1]:8080/"))
        #expect(jar.cookieHeader(for: url("http://[0:0::1]/")) == "c=3")
        #expect(jar.cookieHeader(for: url("http://[0000:0000:0000:0000:0000:0000:0000:0001]/")) == "c=3")
        try jar.setCookie("d=4", from: url("http://127.1/"))
        #expect(jar.cookieHeader(for: url("http://127.0.0.1/")) == "d=4")
        #expect(jar.cookieHeader(for: url("http://0x7f.0.0.1/")) == "d=4")
        #expect(jar.cookies.map(\.domain).sorted() == ["127.0.0.1", "::1"])
    }

    @Test(
        "the URL Standard's serialization of IP hosts",
        arguments: [
            ("127.1", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"),
            ("127.0.0.1.", "127.0.0.1"), ("1.2.3.4", "1.2.3.4"), ("0x", "0.0.0.0"),
            ("0:0::1", "::1"), ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
            ("::ffff:1.2.3.4", "::ffff:102:304"), ("fe80:0:0:0:0:0:0:0", "fe80::"),
            ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
            ("1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"),
        ])
    func serialization(_ input: String, _ expected: String) {
        #expect(CookieRules.canonicalHost(input) == expected)
    }

    @Test(
        "names, and numbers no IPv4 parser takes, stay as written",
        arguments: ["app.example", "1.2.3.256", "1.2.3.4.5", "09.1", "a.1x"])
    func notAddresses(_ input: String) {
        #expect(CookieRules.canonicalHost(input) == input)
    }
}
