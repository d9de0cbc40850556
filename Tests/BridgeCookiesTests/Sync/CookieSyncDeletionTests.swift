import Foundation
import Testing

@testable import BridgeCookies

/// Attack 14, findings 1 and 3: what the web view deleted must leave the jar ("log out once"),
/// and what other sites set must not push the app's login out of it ("log in once").
@Suite("Cookie sync keeps the web view's deletions and the jar's own cookies")
struct CookieSyncDeletionTests {
    static let sid = Cookie(name: "sid", value: "s1", domain: "app.example", isHTTPOnly: true)
    static let user = Cookie(name: "user", value: "ann", domain: "app.example")

    @Test("A cookie the web view deleted after a pull leaves the jar at the next pull (a logout)")
    func logoutAfterPull() async throws {
        let jar = makeFixedJar()
        let store = InMemoryCookieStore(cookies: [Self.sid, Self.user])
        let sync = CookieSync(jar: jar, store: store)
        try await sync.pullStoreIntoJar()
        #expect(Set(jar.cookies.map(\.name)) == ["sid", "user"])
        try await store.deleteCookie(Self.sid)  // the server expired it: the engine dropped it
        try await store.deleteCookie(Self.user)
        try await sync.pullStoreIntoJar()
        #expect(jar.cookies.isEmpty, "the logout reached the jar: \(jar.cookies.map(\.name))")
    }

    @Test("A cookie the web view deleted after a push leaves the jar at the next pull (a logout after a restart)")
    func logoutAfterPush() async throws {
        let jar = makeFixedJar()
        try jar.set(Self.sid)
        let store = InMemoryCookieStore()
        try await CookieSync(jar: jar, store: store).pushJarToStore()
        try await store.deleteCookie(Self.sid)
        // As the recipes do: another sync of the same jar and store, made when the login is kept.
        try await CookieSync(jar: jar, store: store).pullStoreIntoJar()
        #expect(jar.cookies.isEmpty)
    }

    @Test("A cookie the app set in the jar since, or one the store never held, stays")
    func appCookiesStay() async throws {
        let jar = makeFixedJar()
        let store = InMemoryCookieStore(cookies: [Self.sid])
        let sync = CookieSync(jar: jar, store: store)
        try await sync.pullStoreIntoJar()
        try await store.deleteCookie(Self.sid)
        var renewed = Self.sid
        renewed.value = "s2"
        try jar.set(renewed)  // the app logged in again natively
        try jar.set(Cookie(name: "native", value: "1", domain: "api.example"))
        try await sync.pullStoreIntoJar()
        #expect(jar.cookies.map(\.value).sorted() == ["1", "s2"])
        // A store that never held these cookies deletes nothing.
        try await CookieSync(jar: jar, store: InMemoryCookieStore()).pullStoreIntoJar()
        #expect(jar.cookies.count == 2)
    }

    @Test("Other sites' cookies a pull brings beyond the jar's limit are evicted before the jar's own login")
    func pullKeepsOwnLogin() async throws {
        let jar = makeFixedJar(CookieJar.Configuration(maxCookies: 100))
        let store = InMemoryCookieStore(cookies: [Self.sid])
        let sync = CookieSync(jar: jar, store: store)
        try await sync.pullStoreIntoJar()
        // The user visits 10 other sites, each setting 20 HttpOnly cookies (under the per-site limit).
        try await store.addOtherSites(0..<10, perSite: 20)
        await #expect(throws: Never.self) { try await sync.pullStoreIntoJar() }
        #expect(jar.cookies.count == 100)
        #expect(jar.cookies.contains { $0.name == "sid" }, "the app's login was evicted by other sites' cookies")
    }
}
