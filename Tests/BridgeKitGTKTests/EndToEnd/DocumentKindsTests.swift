#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Main-frame documents an allowed page makes itself (blob:, data:, an XSLT result) and
    /// popups: what origin they call with and whether they start a page generation.
    /// SECURITY.md: main frame and allowed origins only; an opaque origin is no origin; documents
    /// that inherit an origin (blob:) are that origin.
    @MainActor
    @Suite("Documents an allowed page makes in the main frame")
    struct DocumentKinds {
        static let callerScript = """
            <script>
            window.__made = true; window.__r = {};
            WebBridge.call('WhoAmI', {}).then(function (v) { window.__r.who = v; }, function (e) { window.__r.who = 'error ' + e.code; });
            WebBridge.call('Record', {made: true}).then(function (v) { window.__r.rec = 'ok'; }, function (e) { window.__r.rec = 'error ' + e.code; });
            </script>
            """

        struct Who: Decodable, Equatable {
            var origin: String?
            var mainFrame: Bool
        }

        @Test(
            "A blob: document in the main frame is its creator's origin and a new page generation",
            .timeLimit(.minutes(1)))
        func blobDocument() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/a"] = .init(body: E2EPage.html(title: "a", body: "<script>window.__docA = true;</script>"))
            let harness = try E2EHarness(allowing: [a.origin])
            try await harness.load(a.origin + "/a")
            let generation = harness.router.pageGeneration
            let html = E2EPage.jsLiteral("<!doctype html><title>blob</title>" + Self.callerScript)
            try await harness.run("location.href = URL.createObjectURL(new Blob([\(html)], {type: 'text/html'}));")
            try await harness.waitFor(
                "window.__made === true && window.__r.who !== undefined && window.__r.rec !== undefined")
            #expect(try await harness.value("window.__r.who", as: Who.self) == Who(origin: a.origin, mainFrame: true))
            #expect(try await harness.value("window.__r.rec", as: String.self) == "ok")
            #expect(harness.router.pageGeneration > generation)
            await harness.close()
        }

        @Test("A page cannot navigate the main frame to a data: URL", .timeLimit(.minutes(1)))
        func dataDocument() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/a"] = .init(body: E2EPage.html(title: "a", body: "<script>window.__docA = true;</script>"))
            let harness = try E2EHarness(allowing: [a.origin])
            try await harness.load(a.origin + "/a")
            let generation = harness.router.pageGeneration
            try await harness.run(
                "location.href = 'data:text/html,' + encodeURIComponent(\(E2EPage.jsLiteral("<title>data</title>" + Self.callerScript)));"
            )
            await idle(.milliseconds(800))
            #expect(try await harness.isTrue("window.__docA === true && window.__made === undefined"))
            #expect(harness.router.pageGeneration == generation)
            #expect(harness.probe.runs.isEmpty)
            await harness.close()
        }

        @Test(
            "window.open (with and without noopener) and target=_blank open nothing and leave the page and its generation",
            .timeLimit(.minutes(1)))
        func popups() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/a"] = .init(body: E2EPage.html(title: "a", body: "<script>window.__docA = true;</script>"))
            a.routes["/p"] = .init(body: "<!doctype html><title>popup</title>" + Self.callerScript)
            let harness = try E2EHarness(allowing: [a.origin])
            try await harness.load(a.origin + "/a")
            let generation = harness.router.pageGeneration
            try await harness.run(
                """
                window.__w1 = window.open('/p'); window.__w2 = window.open('/p', '_blank', 'noopener');
                var l = document.createElement('a'); l.href = '/p'; l.target = '_blank'; document.body.appendChild(l); l.click();
                """)
            await idle(.milliseconds(800))
            #expect(try await harness.isTrue("window.__w1 === null && window.__w2 === null && window.__docA === true"))
            #expect(harness.router.pageGeneration == generation)
            #expect(harness.probe.runs.isEmpty, "no popup document called")
            await harness.close()
        }

        @Test("An XSLT result document calls with its XML document's origin", .timeLimit(.minutes(1)))
        func xsltDocument() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/x.xml"] = .init(
                contentType: "application/xml",
                body:
                    #"<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="/t.xsl"?><root><item>hi</item></root>"#
            )
            a.routes["/t.xsl"] = .init(
                contentType: "application/xslt+xml",
                body: """
                    <?xml version="1.0"?>
                    <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
                    <xsl:output method="html"/>
                    <xsl:template match="/"><html><head><title>xslt</title></head><body><p>transformed</p>
                    <script>window.__made = true; window.__r = {};
                    WebBridge.call('WhoAmI', {}).then(function (v) { window.__r.who = v; }, function (e) { window.__r.who = 'error ' + e.code; });
                    </script></body></html></xsl:template>
                    </xsl:stylesheet>
                    """)
            let harness = try E2EHarness(allowing: [a.origin])
            try harness.view.load(uri: a.origin + "/x.xml")
            try await harness.waitFor("window.__made === true && window.__r.who !== undefined")
            #expect(try await harness.value("document.title", as: String.self) == "xslt")
            #expect(try await harness.value("window.__r.who", as: Who.self) == Who(origin: a.origin, mainFrame: true))
            await harness.close()
        }
    }
}
#endif
