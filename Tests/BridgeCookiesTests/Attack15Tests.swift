import Foundation
import Testing

@testable import BridgeCookies

/// Attack 15: a pull removes from the jar the cookies the store held at the last push or pull
/// and no longer holds "unless the jar's value changed". The value alone does not say whether
/// the app set the cookie again since.
@Suite("Attack 15: cookie sync deletions")
struct Attack15CookieSyncTests {
    @Test(
        "A15-2a A session the app renewed natively (same value, later expiry) stays when the web view's older copy expired"
    )
    func renewedSameValueStays() async throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        try jar.set(Cookie(name: "sid", value: "s1", domain: "app.example", expires: clock.now.addingTimeInterval(60)))
        let store = InMemoryCookieStore()
        let sync = CookieSync(jar: jar, store: store)
        try await sync.pushJarToStore()
        clock.advance(by: 30)
        // A native API response renews the session: the server keeps the id, moves the expiry.
        try jar.setCookie(
            "sid=s1; Max-Age=3600", from: url("https://app.example/api"), source: .http)
        #expect(jar.cookies.first?.expires == clock.now.addingTimeInterval(3600))
        clock.advance(by: 60)  // the web view's copy (never pushed again) has expired
        try await sync.pullStoreIntoJar()
        #expect(
            jar.cookies.map(\.name) == ["sid"],
            "the jar lost the session the app renewed 30 s before: \(jar.cookies.map(\.name))")
    }

    @Test(
        "A15-2b A cookie the app set again after the web view deleted it stays, even when the server gave it the same value"
    )
    func setAgainSameValueStays() async throws {
        let jar = makeFixedJar()
        let consent = Cookie(name: "consent", value: "yes", domain: "app.example")
        let store = InMemoryCookieStore(cookies: [consent])
        let sync = CookieSync(jar: jar, store: store)
        try await sync.pullStoreIntoJar()
        try await store.deleteCookie(consent)  // the page cleared its cookies
        try jar.setCookie("consent=yes", from: url("https://app.example/"), source: .http)  // the app set it again
        try await sync.pullStoreIntoJar()
        #expect(jar.cookies.map(\.name) == ["consent"], "the cookie the app set after the deletion was removed")
    }
}
