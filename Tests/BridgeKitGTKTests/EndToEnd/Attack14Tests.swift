#if WebKitGTK
import BridgeCookies
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 14: cookie sync ("log in once"), history notices, title/progress, user agent.
    @MainActor
    @Suite("Attack 14")
    struct Attack14 {
        static func open(_ origin: String, jar: CookieJar) throws -> (E2EHarness, CookieSync) {
            let harness = try E2EHarness(allowing: [origin])
            return (harness, CookieSync(jar: jar, store: GTKWebCookieStore(harness.view.cookies)))
        }

        static func makeCookieFile() throws -> (folder: URL, file: URL) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bridgekit-a14-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return (folder, folder.appendingPathComponent("cookies.json"))
        }

        static func whoami(_ harness: E2EHarness) async throws -> String {
            try await harness.value("document.getElementById('text').textContent", as: String.self)
        }

        /// Finding 1: the user logs out in the web view (the server expires sid with Max-Age=0);
        /// the recipe's keepLogin (pull, save with session cookies) still saves the session, and the
        /// next start pushes it back: the user is logged in again.
        @Test(
            "A14-1 a logout in the web view survives pull and save: the next start is logged out",
            .timeLimit(.minutes(1)))
        func logoutSurvivesRestart() async throws {
            let server = try CookieServer()
            defer { server.stop() }
            let (folder, file) = try Self.makeCookieFile()
            defer { try? FileManager.default.removeItem(at: folder) }

            let firstJar = CookieJar()
            let (first, firstSync) = try Self.open(server.origin, jar: firstJar)
            try await first.load(server.origin + "/login")
            #expect(try await Self.whoami(first) == "user:alice")
            _ = try await withDeadline("pull") { try await firstSync.pullStoreIntoJar() }
            try firstJar.save(to: file, includeSessionCookies: true)
            // The user logs out; the engine drops sid and user.
            try await first.load(server.origin + "/logout")
            try await first.load(server.origin + "/whoami")
            #expect(try await Self.whoami(first) == "anonymous", "the web view is logged out")
            let firstStore = GTKWebCookieStore(first.view.cookies)
            let engine = try await withDeadline("read store") { try await firstStore.allCookies() }
            #expect(engine.isEmpty, "the engine holds no session any more")
            // keepLogin() at close, as the recipe does.
            _ = try? await withDeadline("pull") { try await firstSync.pullStoreIntoJar() }
            try firstJar.save(to: file, includeSessionCookies: true)
            #expect(firstJar.cookies.map(\.name).sorted() == [], "the jar follows the logout")
            await first.close()

            let secondJar = CookieJar()
            _ = try secondJar.load(from: file)
            let (second, secondSync) = try Self.open(server.origin, jar: secondJar)
            _ = try? await withDeadline("push") { try await secondSync.pushJarToStore() }
            try await second.load(server.origin + "/whoami")
            #expect(try await Self.whoami(second) == "anonymous", "a logout must not be undone by the next start")
            await second.close()
        }

        /// Finding 2: a "never expires" cookie (Expires in year 9999, or a huge Max-Age the jar
        /// clamps to 9999-12-31) is stored by the engine and the jar, but cannot be pushed back.
        @Test(
            "A14-2 a cookie expiring in 9999 (the jar's own latest date) is pushed into a new store",
            .timeLimit(.minutes(1)))
        func farExpiryPushes() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/login"] = .init(
                headers: [
                    ("Set-Cookie", "remember=tok1; Path=/; Expires=Fri, 31 Dec 9999 23:59:59 GMT"),
                    ("Set-Cookie", "forever=tok2; Path=/; Max-Age=999999999999"),
                ],
                body: E2EPage.html(title: "login"))
            server.routes["/echo"] = .init(body: E2EPage.html(title: "echo"))
            let firstJar = CookieJar()
            let (first, firstSync) = try Self.open(server.origin, jar: firstJar)
            try await first.load(server.origin + "/login")
            let firstStore = GTKWebCookieStore(first.view.cookies)
            let engine = try await withDeadline("read store") { try await firstStore.allCookies() }
            #expect(engine.map(\.name).contains("remember"), "the engine keeps the 9999 cookie")
            _ = try? await withDeadline("pull") { try await firstSync.pullStoreIntoJar() }
            // The jar also takes them straight from the headers.
            let url = try #require(URL(string: server.origin + "/login"))
            let refused = firstJar.capture(
                setCookieHeaders: [
                    "remember=tok1; Path=/; Expires=Fri, 31 Dec 9999 23:59:59 GMT",
                    "forever=tok2; Path=/; Max-Age=999999999999",
                ], from: url)
            #expect(refused.isEmpty)
            #expect(Set(firstJar.cookies.map(\.name)) == ["remember", "forever"])
            await first.close()

            let (second, secondSync) = try Self.open(server.origin, jar: firstJar)
            var pushError: String?
            do {
                _ = try await withDeadline("push") { try await secondSync.pushJarToStore() }
            } catch {
                pushError = "\(error)"
            }
            #expect(pushError == nil, "every jar cookie is pushed")
            try await second.load(server.origin + "/echo")
            let cookieSeen = server.requests.last { $0.path.hasPrefix("/echo") }?.cookie ?? ""
            #expect(cookieSeen.contains("remember=tok1"), "the restored cookie reaches the server")
            await second.close()
        }

        /// Finding 4: GTKWebViewConfiguration's applicationName/applicationVersion are checked for
        /// NUL only. A CR/LF, DEL or non-ASCII character reaches
        /// webkit_settings_set_user_agent_with_application_details, which fails its
        /// isValidUserAgentHeaderValue assertion (g_critical) and silently keeps WebKit's bare user
        /// agent: the view is created, no error, and every request goes out without the app token.
        @Test(
            "A14-4 a configuration whose application name or version cannot be a header value is refused, not silently dropped",
            .timeLimit(.minutes(1)),
            arguments: [
                ("Shop\r\nX-Injected: yes", "2.1"), ("Shop", "2.1\r\nX-Injected: yes"), ("Zürich", "2.1"),
                ("Shop\u{7F}", "2.1"),
            ])
        func hostileApplicationDetails(_ name: String, _ version: String) async throws {
            let configuration = GTKWebViewConfiguration(applicationName: name, applicationVersion: version)
            // nil: refused up front, the fixed behaviour.
            guard let sent = try await UserAgentProbe.sent(with: configuration) else { return }
            #expect(
                sent.contains("Shop") || sent.contains("Zürich"),
                "an accepted application name reaches the User-Agent header (sent: \(sent))")
        }

        /// The server of `many_host_server.py` (beside ``PythonTestServer``), on 127.0.0.1 to
        /// 127.0.0.9 with one port, so pages of 127.0.0.N are separate cookie hosts.
        final class ManyHostServer {
            private let server: PythonTestServer

            init() throws { server = try PythonTestServer(script: "many_host_server.py") }

            func origin(_ host: Int) -> String { "http://127.0.0.\(host):\(server.port)" }

            func stop() { server.stop() }
        }

        /// Finding 3: other sites evict the app's login from the jar. The engine (libsoup) has no
        /// global cookie limit, so after the user browsed sites that set many cookies, the store
        /// still holds the login; but pullStoreIntoJar() feeds every store cookie through the jar's
        /// §6.1 global limit (3000 by default) and evicts by last access, and every pulled cookie is
        /// "accessed" at pull time, in the store's order: the login cookie of 127.0.0.1 is dropped
        /// in favour of cookies of unrelated hosts, and the next start is logged out.
        @Test(
            "A14-3 cookies of other hosts in the engine do not push the app's login out of the jar at pull",
            .timeLimit(.minutes(1)))
        func foreignHostsEvictLogin() async throws {
            let server = try ManyHostServer()
            defer { server.stop() }
            // A jar limit of 60 (the default is RFC 6265's 3000) keeps the page loads few: 8 hosts
            // of 50 cookies overflow it as 80 would overflow the default, by enough that wherever
            // the store lists the login, a pull that counted as a use of each cookie evicts it.
            let jar = CookieJar(configuration: CookieJar.Configuration(maxCookies: 60))
            let harness = try E2EHarness(allowing: [server.origin(1)])
            let store = GTKWebCookieStore(harness.view.cookies)
            let sync = CookieSync(jar: jar, store: store)
            try await harness.load(server.origin(1) + "/login")
            _ = try await withDeadline("pull") { try await sync.pullStoreIntoJar() }
            #expect(jar.cookies.map(\.name) == ["sid"], "logged in, as the app's jar records it")
            // The user then browses hosts that each set 50 HttpOnly cookies (the per-host limit).
            for host in 2...9 {
                try await harness.load(server.origin(host) + "/bomb")
            }
            let engine = try await withDeadline("read store") { try await store.allCookies() }
            #expect(engine.contains { $0.name == "sid" }, "the engine keeps the login")
            print(
                "A14-3 engine cookies: \(engine.count); sid index: \(String(describing: engine.firstIndex { $0.name == "sid" }))"
            )
            _ = try? await withDeadline("pull") { try await sync.pullStoreIntoJar() }
            #expect(jar.cookies.contains { $0.name == "sid" }, "the jar still holds the app's login after the pull")
            await harness.close()
        }

        /// Finding 5: the document-start cookie script (docs/cookies.md, "The first request", step
        /// 3: `jar.documentCookiePlan(for: startURL)` as a main-frame document-start user script)
        /// has no guard on the document it runs in. It runs in every main-frame document the view
        /// later shows, so when the view goes to another site its `document.cookie = "csrf=…; path=/"`
        /// assignments create host-only cookies of *that* site with the app's values: the other
        /// site's script reads them and its server receives them.
        @Test(
            "A14-5 the document-start cookie script for one host gives nothing to a page of another host",
            .timeLimit(.minutes(1)))
        func cookieScriptLeaksToOtherHost() async throws {
            let server = try ManyHostServer()
            defer { server.stop() }
            let appOrigin = server.origin(1)
            let otherOrigin = server.origin(2)
            let jar = CookieJar()
            try jar.set(
                Cookie(name: "csrf", value: "tok-A", domain: "127.0.0.1", expires: Date().addingTimeInterval(3600)))
            let startURL = try #require(URL(string: appOrigin + "/echo"))
            let script = try jar.documentCookiePlan(for: startURL).script()
            let harness = try E2EHarness(allowing: [appOrigin])
            try harness.view.addUserScript(script, frames: .mainFrameOnly, injectionTime: .documentStart)
            try await harness.load(appOrigin + "/echo")
            #expect(
                try await harness.value("document.cookie", as: String.self).contains("csrf=tok-A"),
                "the app page gets it")

            // The user follows a link to another site.
            try await harness.load(otherOrigin + "/echo")
            let seenByScript = try await harness.value("document.cookie", as: String.self)
            #expect(
                !seenByScript.contains("tok-A"),
                "another host's script does not see the app's cookie (saw: \(seenByScript))")
            try await harness.load(otherOrigin + "/echo")
            let seenByServer = try await harness.value("document.getElementById('text').textContent", as: String.self)
            #expect(!seenByServer.contains("tok-A"), "another host's server does not receive it (got: \(seenByServer))")
            await harness.close()
        }

        /// Finding 4b: ApplicationToken, the validated way to build the user agent, accepts texts
        /// that WebKit's isValidUserAgentHeaderValue rejects (a second '/', an unclosed comment,
        /// separators that are not token characters). appendingToUserAgent(_:) then hands them to
        /// WebKit, which logs a CRITICAL and keeps its bare user agent: the app token the server
        /// relies on is silently missing from every request.
        @Test(
            "A14-6 an ApplicationToken that validates is the one the server receives",
            .timeLimit(.minutes(1)),
            arguments: [
                "ShopApp/2.1/beta", "ShopApp/2.1 (build 7", "Shop@App/2.1", "Shop,App/2.1", "ShopApp/2.1 [beta]",
                // Valid ones, which must arrive (the task list's token had the refused form before).
                "ShopApp/2.1 (build 7; x86_64) Extra/3",
                ApplicationToken.bridgeTasks(BridgeTaskList(tasks: ["Alert": "1", "Echo": nil])).text,
            ])
        func validatedTokenReachesServer(_ text: String) async throws {
            guard let token = try? ApplicationToken(text) else { return }  // refused up front: fine
            let sent = try await UserAgentProbe.sent(with: .appendingToUserAgent(token))
            #expect(
                sent?.hasSuffix(" " + token.text) == true,
                "the User-Agent header ends with the app token (sent: \(sent ?? "refused"))")
        }
    }
}
#endif
