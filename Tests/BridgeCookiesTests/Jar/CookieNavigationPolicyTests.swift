import Foundation
import Testing

@testable import BridgeCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Log in once: capture and navigation policy")
struct CookieNavigationPolicyTests {
    let home = url("https://app.example/home")

    func loggedInJar() -> CookieJar {
        let jar = makeFixedJar()
        jar.capture(
            setCookieHeaders: ["sid=1; Path=/; Secure; HttpOnly", "theme=dark; Path=/"],
            from: url("https://app.example/login"))
        return jar
    }

    @Test("Set-Cookie headers of a navigation response are captured per host, folded values included")
    func captureResponse() throws {
        let jar = makeFixedJar()
        let response = try #require(
            HTTPURLResponse(
                url: url("https://app.example/login"), statusCode: 302, httpVersion: "HTTP/1.1",
                headerFields: [
                    "set-cookie": "sid=1; Path=/; Expires=Wed, 01 Jan 2031 00:00:00 GMT; HttpOnly, theme=dark; Path=/"
                ]))
        #expect(jar.capture(response: response).isEmpty)
        #expect(jar.cookieHeader(for: home) == "sid=1; theme=dark")
        #expect(jar.cookieHeader(for: url("https://other.example/")) == nil)
        #expect(jar.cookies.first { $0.name == "sid" }?.expires == utc(2031, 1, 1))
    }

    @Test("A request without the jar's cookies is reloaded once with the Cookie header")
    func reloadsOnce() {
        let policy = CookieNavigationPolicy(jar: loggedInJar())
        #expect(policy.decide(url: home, cookieHeader: nil) == .reload(headers: ["Cookie": "sid=1; theme=dark"]))
        #expect(policy.decide(url: home, cookieHeader: nil) == .allow, "never the same URL twice")
        #expect(policy.decide(url: url("https://app.example/home#top"), cookieHeader: "theme=dark") == .allow)
        policy.didFinishLoading(home)
        #expect(
            policy.decide(url: home, cookieHeader: "theme=dark") == .reload(headers: ["Cookie": "sid=1; theme=dark"]))
    }

    @Test("A request that carries every cookie, in any order and with extra ones, is allowed")
    func allowsWhenPresent() {
        let policy = CookieNavigationPolicy(jar: loggedInJar())
        #expect(policy.decide(url: home, cookieHeader: "sid=1; theme=dark") == .allow)
        #expect(policy.decide(url: home, cookieHeader: "theme=dark;sid=1; extra=x") == .allow)
        #expect(
            policy.decide(url: home, cookieHeader: "sid=2; theme=dark")
                == .reload(headers: ["Cookie": "sid=1; theme=dark"]))
    }

    @Test("No jar cookie for the URL: allow")
    func allowsWithoutCookies() {
        let policy = CookieNavigationPolicy(jar: loggedInJar())
        #expect(policy.decide(url: url("https://elsewhere.example/"), cookieHeader: nil) == .allow)
        #expect(
            policy.decide(url: url("http://app.example/home"), cookieHeader: nil)
                == .reload(headers: ["Cookie": "theme=dark"]))
    }

    @Test("The memory of reloaded URLs is bounded: the oldest is forgotten first")
    func boundedMemory() {
        let policy = CookieNavigationPolicy(jar: loggedInJar(), memoryLimit: 2)
        let pages = (1...3).map { url("https://app.example/p\($0)") }
        for page in pages { #expect(policy.decide(url: page, cookieHeader: nil) != .allow) }
        #expect(policy.decide(url: pages[2], cookieHeader: nil) == .allow)
        #expect(policy.decide(url: pages[1], cookieHeader: nil) == .allow)
        #expect(policy.decide(url: pages[0], cookieHeader: nil) != .allow, "p1 was forgotten")
        policy.reset()
        #expect(policy.decide(url: pages[2], cookieHeader: nil) != .allow)
    }
}
