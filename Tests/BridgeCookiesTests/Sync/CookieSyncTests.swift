import Foundation
import Testing

@testable import BridgeCookies

@Suite("Cookie sync between jar and web view store")
struct CookieSyncTests {
    struct Refused: Error, Equatable {}

    func jarWithCookies() throws -> CookieJar {
        let jar = makeFixedJar()
        try jar.set(Cookie(name: "sid", value: "1", domain: "app.example", isSecure: true, isHTTPOnly: true))
        try jar.set(Cookie(name: "theme", value: "dark", domain: "app.example", isHostOnly: false))
        try jar.set(Cookie(name: "lang", value: "de", domain: "api.example", path: "/v1", expires: utc(2031, 1, 1)))
        return jar
    }

    @Test("Push returns once every cookie, HttpOnly included, is in the store")
    func pushAll() async throws {
        let jar = try jarWithCookies()
        let store = InMemoryCookieStore()
        let count = try await CookieSync(jar: jar, store: store).pushJarToStore()
        #expect(count == 3)
        #expect(store.cookies == jar.cookies)
        #expect(store.setCount == 3)
    }

    @Test("Push collects every failure into one error and still sets the other cookies")
    func pushFailures() async throws {
        let jar = try jarWithCookies()
        let store = InMemoryCookieStore(setFailure: { $0.name == "theme" || $0.name == "lang" ? Refused() : nil })
        let error = try await #require(throws: CookieSyncError.self) {
            try await CookieSync(jar: jar, store: store).pushJarToStore()
        }
        #expect(
            error.failures.map(\.cookie) == [
                CookieKey(name: "lang", domain: "api.example", path: "/v1"),
                CookieKey(name: "theme", domain: "app.example", path: "/"),
            ])
        #expect(error.failures.allSatisfy { $0.error is Refused })
        #expect(error.succeeded == 1)
        #expect(store.cookies.map(\.name) == ["sid"])
        #expect(store.setCount == 3)
        #expect(!error.description.contains("dark"), "errors name cookies, never values")
    }

    @Test(
        "A page's document.cookie flood does not make a pull evict the login session: over a limit, HttpOnly cookies (which no script can set) go last (before, the session was the first cookie evicted)"
    )
    func pullFloodKeepsSession() async throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        // Named to come first in the store's listing (it lists by name), as WebKitGTK's did.
        let session = Cookie(name: "SID", value: "s", domain: "app.example", isSecure: true, isHTTPOnly: true)
        try await CookieSync(jar: jar, store: InMemoryCookieStore(cookies: [session])).pullStoreIntoJar()
        clock.advance(by: 60)
        // The page wrote 200 cookies with document.cookie; the engine keeps them all, and the session.
        let junk = (0..<200).map { Cookie(name: "junk\($0)", value: "x", domain: "app.example") }
        for round in 0..<2 {
            try await CookieSync(jar: jar, store: InMemoryCookieStore(cookies: junk + [session])).pullStoreIntoJar()
            let names = jar.cookies.map(\.name)
            #expect(names.contains("SID"), "round \(round): the jar lost the session the web view still has")
            #expect(names.count == jar.configuration.maxCookiesPerDomain)
        }
    }

    @Test(
        "Over the total limit too, HttpOnly cookies go last; among equals the least recently used goes first (RFC 6265 §5.3)"
    )
    func evictionOrder() throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar(CookieJar.Configuration(maxCookiesPerDomain: 50, maxCookies: 20))
        try jar.set(Cookie(name: "sid", value: "s", domain: "a.example", isHTTPOnly: true))
        clock.advance(by: 1)
        try jar.set(Cookie(name: "old", value: "o", domain: "b.example"))
        for index in 0..<30 {
            clock.advance(by: 1)
            try jar.setCookie("c\(index)=x", from: url("https://d\(index % 3).example/"), source: .nonHTTP)
        }
        let names = Set(jar.cookies.map(\.name))
        #expect(names.count == 20)
        #expect(names.contains("sid"))
        #expect(!names.contains("old"), "the least recently used of the others went first")
        #expect(names == Set(["sid"] + (11..<30).map { "c\($0)" }))
    }

    @Test("Pull brings HttpOnly cookies into the jar and keeps creation times of replaced cookies")
    func pull() async throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar()
        try jar.set(Cookie(name: "theme", value: "light", domain: "app.example"))
        clock.advance(by: 60)
        let store = InMemoryCookieStore(cookies: [
            Cookie(name: "sid", value: "new", domain: "app.example", isSecure: true, isHTTPOnly: true),
            Cookie(name: "theme", value: "dark", domain: "app.example"),
            Cookie(name: "old", value: "x", domain: "app.example", expires: clock.now.addingTimeInterval(-1)),
        ])
        let taken = try await CookieSync(jar: jar, store: store).pullStoreIntoJar()
        #expect(taken == 2)
        #expect(jar.cookieHeader(for: url("https://app.example/")) == "theme=dark; sid=new")
        #expect(jar.cookies.first { $0.name == "theme" }?.creationTime == cookieEpoch)
    }

    @Test("Pull reports store cookies the jar's policy refuses, and takes the rest")
    func pullRefusals() async throws {
        let jar = makeFixedJar()
        let store = InMemoryCookieStore(cookies: [
            Cookie(name: "bad", value: "has; semicolon", domain: "app.example"),
            Cookie(name: "good", value: "1", domain: "app.example"),
        ])
        let error = try await #require(throws: CookieSyncError.self) {
            try await CookieSync(jar: jar, store: store).pullStoreIntoJar()
        }
        #expect(error.failures.map(\.cookie) == [CookieKey(name: "bad", domain: "app.example", path: "/")])
        #expect(error.failures.first?.error as? CookieError == .invalidCookieValue(name: "bad"))
        #expect(error.succeeded == 1)
        #expect(jar.cookies.map(\.name) == ["good"])
    }

    @Test("Pull reports a store that cannot be read")
    func pullUnreadableStore() async throws {
        struct Broken: WebCookieStore {
            func allCookies() async throws -> [Cookie] { throw Refused() }
            func setCookie(_ cookie: Cookie) async throws {}
            func deleteCookie(_ cookie: Cookie) async throws {}
        }
        let error = try await #require(throws: CookieSyncError.self) {
            try await CookieSync(jar: makeFixedJar(), store: Broken()).pullStoreIntoJar()
        }
        #expect(error.failures.count == 1)
        #expect(error.failures.first?.cookie == nil)
    }

    @Test("The in-memory store deletes by name, domain (dot or not) and path")
    func inMemoryDelete() async throws {
        let store = InMemoryCookieStore(cookies: [
            Cookie(name: "a", value: "1", domain: ".example.com"),
            Cookie(name: "a", value: "2", domain: "example.com", path: "/x"),
        ])
        try await store.deleteCookie(Cookie(name: "a", value: "", domain: "EXAMPLE.com"))
        #expect(try await store.allCookies().map(\.path) == ["/x"])
        #expect(store.deleteCount == 1)
    }
}
