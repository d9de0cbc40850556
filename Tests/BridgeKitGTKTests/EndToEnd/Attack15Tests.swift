#if WebKitGTK
import BridgeCookies
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 15: the user-agent checks against the real engine.
    @MainActor
    @Suite("Attack 15")
    struct Attack15 {
        /// WebKitGTK's `webkit_settings_set_user_agent_with_application_details` always appends
        /// `name/version`; with a NULL or empty version it uses WebKit's own version
        /// (`standardUserAgent`: `applicationName + '/' + versionForUAString()`), not `name` alone as
        /// ApplicationToken's documentation says. So a token without a `/` is not what the server
        /// gets, and one whose first product has no version but is followed by a comment becomes
        /// `ShopApp (build 7)/605.1.15`, which WebKit's own check refuses: the whole user agent
        /// silently stays WebKit's bare one.
        @Test(
            "A15-3 an ApplicationToken without a version that validates is the one the server receives",
            .timeLimit(.minutes(1)),
            arguments: [
                "ShopApp", "ShopApp (build 7)", "ShopApp (build 7) Extra/3",
                // The task list token of an app whose tasks declare no version (the usual case).
                ApplicationToken.bridgeTasks(BridgeTaskList(tasks: ["Alert": nil, "Echo": nil])).text,
            ])
        func versionlessTokenReachesServer(_ text: String) async throws {
            guard let token = try? ApplicationToken(text) else { return }  // refused up front: fine
            let sent = try await UserAgentProbe.sent(with: .appendingToUserAgent(token))
            #expect(
                sent?.hasSuffix(" " + token.text) == true,
                "the User-Agent header ends with the app token (sent: \(sent ?? "refused"))")
        }

        @Test(
            "A15-3b a configuration with an application name and no version that GTKWebView accepts reaches the server as given",
            .timeLimit(.minutes(1)),
            arguments: ["Shop (beta)", "Shop"])
        func versionlessConfigurationReachesServer(_ name: String) async throws {
            let configuration = GTKWebViewConfiguration(applicationName: name, applicationVersion: nil)
            // nil: refused up front, fine.
            guard let sent = try await UserAgentProbe.sent(with: configuration) else { return }
            #expect(sent.hasSuffix(" " + name), "the User-Agent header ends with the application name (sent: \(sent))")
        }
        @Test(
            "A15-3c RFC 9110 edge forms our check accepts reach the server",
            .timeLimit(.minutes(1)),
            arguments: [
                "ShopApp/2.1 (a (nested) c)", #"ShopApp/2.1 (a \) b)"#, "Shop!#$%&'*+-.^_`|~App/2.1",
                "ShopApp/2.1 (x/y; z=1, @[])", "ShopApp/2.1 ()", "ShopApp/2.1 (a \\ b)", "ShopApp/2.1 Extra",
                "ShopApp/2.1 (((((deep)))))",
            ])
        func edgeTokenReachesServer(_ text: String) async throws {
            guard let token = try? ApplicationToken(text) else {
                print("A15-3c refused: \(text)")
                return
            }
            let sent = try await UserAgentProbe.sent(with: .appendingToUserAgent(token))
            #expect(
                sent?.hasSuffix(" " + token.text) == true,
                "the User-Agent header ends with the app token (sent: \(sent ?? "refused"))")
        }
        /// A pull right after a push must not lose a cookie the jar holds: the record says the
        /// store held every pushed cookie, so one the engine silently dropped or stored under
        /// another name, domain or path leaves the jar at the pull.
        @Test(
            "A15-2c a push then a pull with the real store keeps every cookie the push reported stored",
            .timeLimit(.minutes(1)))
        func pushPullRoundTrip() async throws {
            let later = Date().addingTimeInterval(3600)
            let candidates = [
                Cookie(name: "", value: "bare", domain: "127.0.0.1", expires: later),
                Cookie(name: "sp ace", value: "v", domain: "127.0.0.1", expires: later),
                Cookie(name: "q", value: "\"quoted\"", domain: "127.0.0.1", expires: later),
                Cookie(name: "dom", value: "v", domain: "app.example", isHostOnly: false, expires: later),
                Cookie(name: "ip", value: "v", domain: "127.0.0.1", isHostOnly: false, expires: later),
                Cookie(name: "p", value: "v", domain: "127.0.0.1", path: "/a/", expires: later),
                Cookie(name: "pe", value: "v", domain: "127.0.0.1", path: "/a%20b", expires: later),
                Cookie(name: "none", value: "v", domain: "127.0.0.1", expires: later, sameSite: CookieSameSite.none),
                Cookie(name: "__Host-x", value: "v", domain: "127.0.0.1", expires: later, isSecure: true),
                Cookie(
                    name: "__Secure-y", value: "v", domain: "app.example", isHostOnly: false, expires: later,
                    isSecure: true),
                Cookie(name: "long", value: String(repeating: "x", count: 4000), domain: "127.0.0.1", expires: later),
                Cookie(name: "sess", value: "v", domain: "127.0.0.1"),
                Cookie(name: "UPPER", value: "v", domain: "APP.example", expires: later),
                Cookie(name: "tld", value: "v", domain: "localhost", isHostOnly: false, expires: later),
                Cookie(
                    name: "far", value: "v", domain: "127.0.0.1",
                    expires: Date(timeIntervalSince1970: 253_402_300_799 + 86_400)),
            ]
            let jar = CookieJar()
            for cookie in candidates { try? jar.set(cookie) }
            let before = jar.cookies.map(\.key)
            let harness = try E2EHarness(allowing: [])
            let sync = CookieSync(jar: jar, store: GTKWebCookieStore(harness.view.cookies))
            var failed: [CookieKey] = []
            do {
                _ = try await withDeadline("push") { try await sync.pushJarToStore() }
            } catch let error as CookieSyncError {
                failed = error.failures.compactMap(\.cookie)
            }
            let engine = try await withDeadline("read") {
                try await GTKWebCookieStore(harness.view.cookies).allCookies()
            }
            print(
                "A15-2c jar: \(before)\nA15-2c push failures: \(failed)\nA15-2c engine: \(engine.map { "\($0.key) hostOnly=\($0.isHostOnly)" })"
            )
            _ = try? await withDeadline("pull") { try await sync.pullStoreIntoJar() }
            let after = Set(jar.cookies.map(\.key))
            let lost = before.filter { !after.contains($0) && !failed.contains($0) }
            #expect(lost.isEmpty, "a pull right after the push removed cookies the push stored: \(lost)")
            await harness.close()
        }
    }
}
#endif
