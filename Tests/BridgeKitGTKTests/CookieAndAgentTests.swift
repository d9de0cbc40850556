#if WebKitGTK
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests {
    @MainActor
    @Suite("Cookies and user agent")
    struct CookiesAndAgent {
        @Test(
            "server cookies (HttpOnly too) are readable; added cookies reach the server; delete removes",
            .timeLimit(.minutes(1)))
        func cookieRoundTrip() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/set"] = .init(
                headers: [("Set-Cookie", "sid=abc; Path=/; HttpOnly"), ("Set-Cookie", "pref=it's; Path=/")],
                body: "<title>set</title>")
            server.routes["/echo"] = .init(body: "<title>echo</title>")
            let view = try GTKWebView()
            defer { finish(view) }
            try view.load(uri: server.origin + "/set")
            #expect(waitUntil { view.title == "set" })

            let jar = try await view.cookies.cookies(for: server.origin + "/")
            let sid = try #require(jar.first { $0.name == "sid" })
            #expect(
                sid.value == "abc" && sid.isHTTPOnly && sid.domain == "127.0.0.1" && sid.path == "/"
                    && sid.expires == nil)
            #expect(jar.first { $0.name == "pref" }?.value == "it's")
            #expect(try await view.evaluateJavaScriptReturningJSON("document.cookie") == #""pref=it's""#)

            let expiry = Date(timeIntervalSince1970: 1_900_000_000)
            try await view.cookies.add(
                GTKCookie(
                    name: "added", value: "v1", domain: "127.0.0.1", path: "/", expires: expiry,
                    isHTTPOnly: true, sameSite: "Lax"))
            let all = try await view.cookies.allCookies()
            let added = try #require(all.first { $0.name == "added" })
            #expect(added.expires == expiry)
            #expect(added.isHTTPOnly && added.sameSite == "Lax" && !added.isSecure)

            try view.load(uri: server.origin + "/echo")
            #expect(waitUntil { view.title == "echo" })
            let sent = try #require(server.requests.last { $0.path == "/echo" }?.cookie)
            #expect(Set(sent.components(separatedBy: "; ")) == ["sid=abc", "pref=it's", "added=v1"])

            try await view.cookies.delete(GTKCookie(name: "sid", value: "", domain: "127.0.0.1", path: "/"))
            try await view.cookies.delete(GTKCookie(name: "never-set", value: "", domain: "127.0.0.1"))
            let after = try await view.cookies.allCookies()
            #expect(Set(after.map(\.name)) == ["pref", "added"])
        }

        @Test(
            "cookie fields that would split or corrupt the Cookie header are rejected, never sent",
            .timeLimit(.minutes(1)))
        func cookieFieldsValidated() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            let bad = [
                GTKCookie(name: "a", value: "x; injected=1", domain: "127.0.0.1"),
                GTKCookie(name: "a=b", value: "x", domain: "127.0.0.1"),
                // "\r\n" is one Character.
                GTKCookie(name: "a", value: "x\r\nSet-Cookie: y=1", domain: "127.0.0.1"),
                GTKCookie(name: "a", value: "x\ny", domain: "127.0.0.1"),
                // ';' + combining mark is one Character.
                GTKCookie(name: "a", value: "x;\u{301}y", domain: "127.0.0.1"),
                GTKCookie(name: "a", value: "x\u{0}y", domain: "127.0.0.1"),
                GTKCookie(name: "a", value: "x", domain: ""),
                GTKCookie(name: "a", value: "x", domain: "127.0.0.1", sameSite: "Sometimes"),
            ]
            for cookie in bad {
                await #expect(throws: GTKWebViewError.self, "\(cookie)") { try await view.cookies.add(cookie) }
            }
            #expect(try await view.cookies.allCookies().isEmpty)
        }

        @Test(
            "R45 application details are appended to WebKit's user agent, which stays intact", .timeLimit(.minutes(1)))
        func r45UserAgentAppended() throws {
            let plain = try GTKWebView()
            let base = try #require(plain.userAgent)
            finish(plain)
            let view = try GTKWebView(configuration: .init(applicationName: "ShopApp", applicationVersion: "2.1"))
            defer { finish(view) }
            let agent = try #require(view.userAgent)
            #expect(agent == base + " ShopApp/2.1")
            #expect(agent.hasPrefix(base))
            #expect(base.contains("AppleWebKit/"))
        }

        @Test("R47 the very first request already carries the application user agent", .timeLimit(.minutes(1)))
        func r47FirstRequestHasUserAgent() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/first"] = .init(body: "<title>first</title>")
            let view = try GTKWebView(configuration: .init(applicationName: "ShopApp", applicationVersion: "2.1"))
            defer { finish(view) }
            try view.load(uri: server.origin + "/first")
            #expect(waitUntil { view.title == "first" })
            let first = try #require(server.requests.first)
            #expect(first.path == "/first")
            #expect(first.userAgent?.hasSuffix(" ShopApp/2.1") == true)
            #expect(
                try await view.evaluateJavaScriptReturningJSON("navigator.userAgent")
                    == jsonStringLiteral(first.userAgent ?? ""))
        }
    }
}
#endif
