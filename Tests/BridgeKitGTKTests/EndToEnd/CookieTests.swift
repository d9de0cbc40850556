#if WebKitGTK
import BridgeCookies
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// The app's ``CookieJar`` and WebKitGTK's cookie store against a real HTTP server
    /// (`cookie_server.py` on 127.0.0.1).
    @MainActor
    @Suite("Cookies")
    struct Cookies {
        /// A harness for the cookie server's origin and a sync between `jar` and its view's store.
        static func open(_ server: CookieServer, jar: CookieJar) throws -> (E2EHarness, CookieSync) {
            let harness = try E2EHarness(allowing: [server.origin])
            return (harness, CookieSync(jar: jar, store: GTKWebCookieStore(harness.view.cookies)))
        }

        /// The `name=value` pairs of a Cookie header or `document.cookie` text.
        static func pairs(_ text: String) -> Set<String> {
            Set(text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }

        /// The Cookie header the server echoed into the page.
        static func serverCookies(_ harness: E2EHarness) async throws -> Set<String> {
            pairs(try await harness.value("document.getElementById('cookie').textContent", as: String.self))
        }

        static func documentCookies(_ harness: E2EHarness) async throws -> Set<String> {
            pairs(try await harness.value("document.cookie", as: String.self))
        }

        static func hourFromNow() -> Date { Date().addingTimeInterval(3600) }

        @Test(
            "R42 R33 a jar pushed before the first load: the first request carries every cookie; HttpOnly stays out of document.cookie",
            .timeLimit(.minutes(1)))
        func r42FirstRequestCarriesJar() async throws {
            let server = try CookieServer()
            defer { server.stop() }
            let jar = CookieJar()
            try jar.set(
                Cookie(name: "sid", value: "s3cr3t", domain: "127.0.0.1", expires: Self.hourFromNow(), isHTTPOnly: true)
            )
            try jar.set(Cookie(name: "session", value: "s1", domain: "127.0.0.1"))  // no expiry: a session cookie
            try jar.set(Cookie(name: "elsewhere", value: "no", domain: "other.example", expires: Self.hourFromNow()))
            let (harness, sync) = try Self.open(server, jar: jar)
            #expect(try await withDeadline("push") { try await sync.pushJarToStore() } == 3)

            try await harness.load(server.origin + "/echo")
            let sent = try await Self.serverCookies(harness)
            #expect(
                sent == ["sid=s3cr3t", "session=s1"], "the first request carried both, and nothing for another domain")
            #expect(try await Self.documentCookies(harness) == ["session=s1"], "HttpOnly sid is not visible to scripts")
            // A redirect keeps carrying them.
            try await harness.load(server.origin + "/redirect?to=/echo")
            #expect(try await Self.serverCookies(harness) == ["sid=s3cr3t", "session=s1"])
            await harness.close()
        }

        @Test(
            "a cookie set by the page (document.cookie) or by a response reaches the app jar via pullStoreIntoJar()",
            .timeLimit(.minutes(1)))
        func pageCookiesReachJar() async throws {
            let server = try CookieServer()
            defer { server.stop() }
            let jar = CookieJar()
            let (harness, sync) = try Self.open(server, jar: jar)
            try await harness.load(server.origin + "/set?lang=en")
            try await harness.run("document.cookie = 'theme=dark; path=/; max-age=3600';")
            #expect(try await Self.documentCookies(harness) == ["lang=en", "theme=dark"])
            #expect(jar.cookies.isEmpty)

            #expect(try await withDeadline("pull") { try await sync.pullStoreIntoJar() } == 2)
            let theme = try #require(jar.cookies.first { $0.name == "theme" })
            #expect(theme.value == "dark")
            #expect(theme.domain == "127.0.0.1")
            #expect(theme.isHostOnly)
            #expect(!theme.isHTTPOnly)
            #expect(theme.expires != nil)
            #expect(jar.cookies.first { $0.name == "lang" }?.value == "en")
            // The server sees the page's cookie on the next request, and the jar's header agrees.
            try await harness.load(server.origin + "/echo")
            #expect(try await Self.serverCookies(harness) == ["lang=en", "theme=dark"])
            let url = try #require(URL(string: server.origin + "/echo"))
            #expect(jar.cookieHeader(for: url).map(Self.pairs) == ["lang=en", "theme=dark"])
            await harness.close()
        }

        /// A new temporary folder (the caller removes it) and the cookie file's URL in it.
        static func makeCookieFile() throws -> (folder: URL, file: URL) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bridgekit-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return (folder, folder.appendingPathComponent("cookies.json"))
        }

        @Test(
            "login survives a host restart: jar saved to a file, loaded again, pushed into a new ephemeral store",
            .timeLimit(.minutes(1)))
        func loginSurvivesRestart() async throws {
            let server = try CookieServer()
            defer { server.stop() }
            let (folder, file) = try Self.makeCookieFile()
            defer { try? FileManager.default.removeItem(at: folder) }

            // First run: log in (the 302 response sets the cookies), pull, save.
            let firstJar = CookieJar()
            let (first, firstSync) = try Self.open(server, jar: firstJar)
            try await first.load(server.origin + "/login")
            #expect(first.view.uri == server.origin + "/whoami", "followed the redirect")
            #expect(
                try await first.value("document.getElementById('text').textContent", as: String.self) == "user:alice")
            _ = try await withDeadline("pull") { try await firstSync.pullStoreIntoJar() }
            #expect(firstJar.cookies.first { $0.name == "sid" }?.isHTTPOnly == true)
            try firstJar.save(to: file)
            await first.close()

            // Second run: a new view with a new, empty ephemeral store.
            let secondJar = CookieJar()
            #expect(try secondJar.load(from: file) == 2)
            let (second, secondSync) = try Self.open(server, jar: secondJar)
            let cookies = second.view.cookies
            #expect(try await withDeadline("read empty store") { @MainActor in try await cookies.allCookies() }.isEmpty)
            _ = try await withDeadline("push") { try await secondSync.pushJarToStore() }
            try await second.load(server.origin + "/whoami")
            #expect(
                try await second.value("document.getElementById('text').textContent", as: String.self) == "user:alice",
                "still logged in")
            // Logging out clears it in the store.
            try await second.load(server.origin + "/logout")
            try await second.load(server.origin + "/whoami")
            #expect(
                try await second.value("document.getElementById('text').textContent", as: String.self) == "anonymous")
            await second.close()
        }

        /// The fields a restart must keep, expiry in whole seconds as libsoup keeps it.
        static func snapshot(_ cookies: [Cookie]) -> [String] {
            cookies.map { cookie in
                let expires = cookie.expires.map { String(Int($0.timeIntervalSince1970)) } ?? "session"
                return [
                    cookie.name, cookie.value, cookie.domain, cookie.isHostOnly ? "host" : "domain", cookie.path,
                    expires,
                    cookie.isSecure ? "secure" : "-", cookie.isHTTPOnly ? "httponly" : "-",
                    cookie.sameSite?.rawValue ?? "-",
                ].joined(separator: "|")
            }.sorted()
        }

        @Test(
            "issue 23: a framework-style login (session cookie, Werkzeug quoting, Max-Age with Expires, SameSite, a scoped path) survives a restart byte for byte",
            .timeLimit(.minutes(1)))
        func frameworkLoginSurvivesRestart() async throws {
            let server = try CookieServer()
            defer { server.stop() }
            let (folder, file) = try Self.makeCookieFile()
            defer { try? FileManager.default.removeItem(at: folder) }

            // First run: log in, pull what the engine stored, save with session cookies.
            let firstJar = CookieJar()
            let (first, firstSync) = try Self.open(server, jar: firstJar)
            try await first.load(server.origin + "/app/login")
            #expect(
                try await first.value("document.getElementById('text').textContent", as: String.self) == "user:alice")
            let firstStore = GTKWebCookieStore(first.view.cookies)
            let engineStored = try await withDeadline("read store") { try await firstStore.allCookies() }
            #expect(engineStored.count == 7, "WebKitGTK keeps every cookie the framework set")
            #expect(
                try await withDeadline("pull") { try await firstSync.pullStoreIntoJar() } == 7,
                "the jar takes every cookie the engine kept")
            try firstJar.save(to: file, includeSessionCookies: true)
            await first.close()

            // Second run: a new jar from the file, a new view with an empty store, pushed before the first load.
            let secondJar = CookieJar()
            #expect(try secondJar.load(from: file) == 7)
            let (second, secondSync) = try Self.open(server, jar: secondJar)
            #expect(try await withDeadline("push") { try await secondSync.pushJarToStore() } == 7)
            let secondStore = GTKWebCookieStore(second.view.cookies)
            let restored = try await withDeadline("read store") { try await secondStore.allCookies() }
            #expect(
                Self.snapshot(restored) == Self.snapshot(engineStored),
                "every cookie byte-identical to what the engine stored")
            try await second.load(server.origin + "/app/whoami")
            #expect(
                try await second.value("document.getElementById('text').textContent", as: String.self) == "user:alice",
                "still logged in after the restart")
            let header = try await second.value("document.getElementById('cookie').textContent", as: String.self)
            #expect(header.contains("prefs=\"a b\\054c\""))
            #expect(header.contains("city=\"Z\\303\\274rich\""))
            #expect(header.contains("json=\"{\\\"a\\\": 1}\""))
            #expect(!header.contains("scoped="), "the path-scoped cookie stays on its path")
            await second.close()
        }

        @Test("a Set-Cookie for another domain is stored neither by WebKit nor by the jar", .timeLimit(.minutes(1)))
        func foreignDomainRefused() async throws {
            let server = try CookieServer()
            defer { server.stop() }
            let jar = CookieJar()
            let (harness, sync) = try Self.open(server, jar: jar)
            try await harness.load(server.origin + "/foreign")
            let cookies = harness.view.cookies
            let stored = try await withDeadline("read store") { @MainActor in try await cookies.allCookies() }
            #expect(stored.map(\.name) == ["y"], "WebKit kept the host cookie and refused Domain=other.example")
            #expect(try await Self.documentCookies(harness) == ["y=2"])

            // The jar, given exactly the headers the server sent, refuses the same one.
            let sent = try await harness.value("document.getElementById('sent').textContent", as: String.self)
            let headers = sent.split(separator: "\n").map(String.init)
            #expect(headers.count == 2)
            let url = try #require(URL(string: server.origin + "/foreign"))
            let rejected = jar.capture(setCookieHeaders: headers, from: url)
            #expect(rejected.count == 1)
            #expect(rejected.first?.setCookie.hasPrefix("x=1") == true)
            #expect(jar.cookies.map(\.name) == ["y"])
            #expect(try await withDeadline("pull") { try await sync.pullStoreIntoJar() } == 1)
            #expect(jar.cookies.map(\.name) == ["y"])
            await harness.close()
        }
    }
}
#endif
