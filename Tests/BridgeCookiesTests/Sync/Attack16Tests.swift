import BridgeKit
import Foundation
import Testing

@testable import BridgeCookies

/// Attack 16 on cookie sync.
@Suite("Attack 16: cookie sync")
struct Attack16CookieSyncTests {
    /// A pull's cookie new to the jar is spared by the limit check of its own insertion
    /// (`enforceLimits(sparing:)`), so when the jar is full of its own cookies the victim is one
    /// of them — the app's login — and the other site's cookie (last access `distantPast`) stays.
    @Test("A full jar keeps its own login when a pull brings one other site's cookie")
    func fullJarKeepsLoginOnPull() async throws {
        let jar = makeFixedJar(CookieJar.Configuration(maxCookies: 2))
        let sid = Cookie(name: "sid", value: "s1", domain: "app.example", isHTTPOnly: true)
        let pref = Cookie(name: "pref", value: "p", domain: "app.example", isHTTPOnly: true)
        try jar.set(sid)
        try jar.set(pref)
        let store = InMemoryCookieStore()
        let sync = CookieSync(jar: jar, store: store)
        try await sync.pushJarToStore()
        // The view visits another site, which sets one HttpOnly cookie.
        try await store.setCookie(Cookie(name: "t", value: "1", domain: "other.example", isHTTPOnly: true))
        _ = try? await sync.pullStoreIntoJar()
        let names = Set(jar.cookies.map(\.name))
        #expect(names.contains("sid"), "the app's login was evicted by another site's cookie: \(names.sorted())")
        #expect(names == ["sid", "pref"], "the other site's cookie should go first: \(names.sorted())")
    }

    /// The realistic form of the same fault: the jar is full only because an earlier pull brought
    /// other sites' cookies (as attack 14's test does); the next pull sets them again (an access)
    /// and spares the one new cookie, so the victim is the oldest cookie: the app's login.
    @Test("A second pull that brings one more site's cookie keeps the app's login")
    func secondPullKeepsLogin() async throws {
        let clock = CookieTestClock()
        let jar = clock.makeJar(CookieJar.Configuration(maxCookies: 100))
        let sid = Cookie(name: "sid", value: "s1", domain: "app.example", isHTTPOnly: true)
        let store = InMemoryCookieStore(cookies: [sid])
        let sync = CookieSync(jar: jar, store: store)
        try await sync.pullStoreIntoJar()
        try await store.addOtherSites(0..<10, perSite: 20)
        clock.advance(by: 60)
        _ = try? await sync.pullStoreIntoJar()
        #expect(jar.cookies.contains { $0.name == "sid" }, "first pull")
        clock.advance(by: 60)
        try await store.setCookie(Cookie(name: "n", value: "v", domain: "site10.example", isHTTPOnly: true))
        _ = try? await sync.pullStoreIntoJar()
        #expect(jar.cookies.count == 100)
        #expect(jar.cookies.contains { $0.name == "sid" }, "the second pull evicted the app's login")
    }

    /// A pull reads the store, then (after the engine answers) removes what its answer lacks and
    /// the record holds. A push (or another pull, as the recipe's per-`didFinish` Task starts)
    /// that completes while the first pull waits for the engine records a cookie the stale answer
    /// lacks: the stale pull then takes that cookie for deleted in the web view and removes it
    /// from the jar, though the store holds it. A save right then loses the login.
    /// Waits until `done` or about a second: long enough for a sync that does not wait for its
    /// turn to finish, so that the test fails without the turns instead of racing them.
    static func briefly(_ done: () -> Bool) async {
        for _ in 0..<100 where !done() { try? await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("A pull whose answer predates a push does not remove the cookie the push just set")
    func stalePullAfterPush() async throws {
        let jar = makeFixedJar()
        let store = GatedCookieStore()
        let sync = CookieSync(jar: jar, store: store)
        store.holdNextRead()
        let pull = Task { try await sync.pullStoreIntoJar() }
        await store.waitUntilReadHeld()  // the pull's answer (empty store) is taken
        try jar.set(Cookie(name: "sid", value: "s1", domain: "app.example", isHTTPOnly: true))
        // The app logs in natively and pushes: the push waits for the pull that started first
        // (without that order it would finish now, and the held pull would then take the pushed
        // cookie for deleted).
        let pushed = Locked(false)
        let push = Task {
            _ = try await sync.pushJarToStore()
            pushed.withLock { $0 = true }
        }
        await Self.briefly { pushed.withLock { $0 } }
        store.releaseRead()
        _ = try? await pull.value
        _ = try? await push.value
        #expect(try await store.allCookies().map(\.name) == ["sid"], "the store holds the login")
        #expect(
            jar.cookies.map(\.name) == ["sid"], "the jar lost the login the store holds: \(jar.cookies.map(\.name))")
    }

    @Test("Of two overlapping pulls, the older answer does not remove a cookie the newer one took")
    func overlappingPulls() async throws {
        let jar = makeFixedJar()
        let store = GatedCookieStore()
        let sync = CookieSync(jar: jar, store: store)
        store.holdNextRead()
        let first = Task { try await sync.pullStoreIntoJar() }  // didFinish of page 1
        await store.waitUntilReadHeld()
        // Page 2 logs the user in, and its didFinish pull completes first.
        try await store.setCookie(Cookie(name: "sid", value: "s1", domain: "app.example", isHTTPOnly: true))
        // Its pull waits for the older one: the older answer cannot land after the newer.
        let pulled = Locked(false)
        let second = Task {
            _ = try await sync.pullStoreIntoJar()
            pulled.withLock { $0 = true }
        }
        await Self.briefly { pulled.withLock { $0 } }
        store.releaseRead()
        _ = try? await first.value
        _ = try? await second.value
        #expect(
            jar.cookies.map(\.name) == ["sid"],
            "the older pull removed the login the store holds: \(jar.cookies.map(\.name))")
    }
}

/// An in-memory store whose next `allCookies()` answers with the cookies held when it was
/// called, but only once released (an engine answering later).
final class GatedCookieStore: WebCookieStore, @unchecked Sendable {
    private let inner = InMemoryCookieStore()
    private let lock = NSLock()
    private var hold = false
    private var held = false
    private var gate: CheckedContinuation<Void, Never>?
    private var released = false

    func holdNextRead() { lock.withLock { hold = true } }
    func releaseRead() {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            released = true
            defer { gate = nil }
            return gate
        }
        continuation?.resume()
    }
    func waitUntilReadHeld() async {
        while !lock.withLock({ held }) { try? await Task.sleep(nanoseconds: 1_000_000) }
    }

    func allCookies() async throws -> [Cookie] {
        let snapshot = try await inner.allCookies()
        let shouldHold = lock.withLock { () -> Bool in
            defer { hold = false }
            return hold
        }
        if shouldHold {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock { () -> Bool in
                    held = true
                    if released { return true }
                    gate = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return snapshot
    }

    func setCookie(_ cookie: Cookie) async throws { try await inner.setCookie(cookie) }
    func deleteCookie(_ cookie: Cookie) async throws { try await inner.deleteCookie(cookie) }
}
