#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// The wait for the document notice (``DocumentWait``) in real WebKitGTK: a document where
    /// WebKit ran no user scripts would never announce itself, and native's scripts to it would
    /// wait for the notice. Documents of every kind (a CSP sandbox, text, JSON, XML, SVG, an
    /// image) announce themselves in WebKitGTK 2.50; were one not to, only the first script of its
    /// generation would wait, up to ``DocumentWait/limit`` after the commit.
    @MainActor
    @Suite("Documents of any kind and the wait for their notice")
    struct DocumentKindsWait {
        static let kinds: [(String, String, String)] = [
            ("text/html; charset=utf-8", "sandbox", "<!doctype html><title>s</title><p>s</p>"),
            ("text/plain", "", "plain text"),
            ("application/json", "", "{\"a\": 1}"),
            ("application/xml", "", "<?xml version=\"1.0\"?><root>x</root>"),
            ("image/svg+xml", "", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>"),
            ("image/png", "", "not really a png"),
            ("application/octet-stream-unknown-kind", "", "x"),
        ]

        @Test(
            "Events to documents of any kind (CSP sandbox, text, images, XML, JSON) do not wait a second each",
            .timeLimit(.minutes(1)), arguments: 0..<7)
        func documentKinds(kind: Int) async throws {
            let (contentType, csp, body) = Self.kinds[kind]
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/a"] = .init(body: E2EPage.html(title: "a", body: "<p>a</p>"))
            a.routes["/s"] = .init(
                contentType: contentType, headers: csp.isEmpty ? [] : [("Content-Security-Policy", csp)], body: body)
            let harness = try E2EHarness(allowing: [a.origin])
            try await harness.load(a.origin + "/a")
            let clock = ContinuousClock()
            var start = clock.now
            for n in 0..<3 { try? await harness.router.emit("status", data: n) }
            let onA = clock.now - start
            let generation = harness.router.pageGeneration
            // Not harness.load: it reads document.readyState, and WebKit may run no script in
            // this document ("Cannot execute JavaScript in this document").
            try harness.view.load(uri: a.origin + "/s")
            for _ in 0..<300 where harness.router.pageGeneration == generation {
                try await Task.sleep(for: .milliseconds(10))
            }
            let committed = harness.router.pageGeneration > generation
            try await Task.sleep(for: .milliseconds(500))  // time for a notice, had there been one
            start = clock.now
            for n in 0..<3 { try? await harness.router.emit("status", data: n) }
            let onS = clock.now - start
            print(
                "DocumentKindsWait: \(contentType) \(csp): committed \(committed), 3 events \(onS) (on a normal page \(onA))"
            )
            #expect(onS < .milliseconds(1500), "\(contentType) \(csp): 3 events took \(onS), \(onA) on a normal page")
            await harness.close()
        }
    }
}
#endif
