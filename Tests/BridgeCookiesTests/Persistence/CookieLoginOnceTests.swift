import Foundation
import Testing

@testable import BridgeCookies

/// Issue 23 item 4: "log in once" survives a restart with real frameworks' defaults.
@Suite("Cookies: log in once across a restart")
struct CookieLoginOnceTests {
    let origin = url("https://app.example/")

    /// A login response as Flask/Werkzeug sends it: a session cookie without Expires, quoted
    /// values with octal escapes, Max-Age with Expires, SameSite, a path-scoped cookie.
    let loginResponse = [
        "session=eyJ1c2VyIjoxfQ.Zx9; HttpOnly; Path=/; SameSite=Lax",
        "prefs=\"a b\\054c\"; Path=/",
        "remember=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Max-Age=86400; Path=/",
        "scoped=x; Path=/account",
    ]

    @Test("Saving for login-once keeps session cookies, byte for byte, and a restart sends the same header")
    func sessionCookiesSurviveRestart() throws {
        let jar = makeFixedJar()
        #expect(jar.capture(setCookieHeaders: loginResponse, from: origin).isEmpty)
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try jar.save(to: file, includeSessionCookies: true)
        let restarted = makeFixedJar()
        #expect(try restarted.load(from: file) == 4)
        #expect(restarted.cookies == jar.cookies)
        #expect(
            restarted.cookieHeader(for: url("https://app.example/account/x"))
                == jar.cookieHeader(for: url("https://app.example/account/x")))
        #expect(
            restarted.cookieHeader(for: origin)?.hasPrefix("session=eyJ1c2VyIjoxfQ.Zx9; prefs=\"a b\\054c\"") == true)
    }

    @Test("An optional cap on the age of saved session cookies leaves older ones out")
    func sessionCookieAgeCap() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        jar.capture(setCookieHeaders: ["old=1"], from: origin)
        clock.advance(by: 3_600)
        jar.capture(setCookieHeaders: ["fresh=2", "kept=3; Max-Age=999999"], from: origin)
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cookies.json")
        try jar.save(to: file, includeSessionCookies: true, maxSessionCookieAge: 1_800)
        let restarted = clock.makeJar()
        try restarted.load(from: file)
        #expect(restarted.cookies.map(\.name).sorted() == ["fresh", "kept"])
        #expect(jar.cookies.count == 3, "saving leaves the jar as it is")
    }

    @Test("Cookies pushed into a web store keep their creation order")
    func pushKeepsCreationOrder() async throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        jar.capture(setCookieHeaders: ["z=1", "a=2", "m=3"], from: origin)
        clock.advance(by: -10)
        jar.capture(setCookieHeaders: ["early=0"], from: origin)
        let store = InMemoryCookieStore()
        #expect(try await CookieSync(jar: jar, store: store).pushJarToStore() == 4)
        #expect(store.setHistory.map(\.name) == ["early", "z", "a", "m"])
    }
}
