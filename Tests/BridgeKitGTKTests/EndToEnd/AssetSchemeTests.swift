#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// A page of several files served by `GTKAssetURIScheme` (`app://bundle`): its scripts, module
    /// scripts, stylesheet and image load from the scheme; its documents have the tuple origin
    /// `app://bundle`, which the bridge's policy allows or refuses by name; a subframe of the scheme
    /// is still a subframe; requests for anything but a regular file inside the directory fail
    /// without reading outside it.
    @MainActor
    @Suite("Asset URI scheme")
    struct AssetScheme {
        /// What the page's `fetch` of one URL gave.
        struct Fetched: Decodable {
            var status: Int
            var type: String?
            var nosniff: String?
            var text: String?
            var error: String?
        }

        /// One report from the subframe.
        struct FrameReport: Decodable {
            var ok: Bool
            var data: JSONValue?
            var code: String?
            var details: JSONValue?
        }

        /// Text no response may contain: it is only in files outside the served directory.
        nonisolated static let secret = "TOP-SECRET-OUTSIDE-THE-DIRECTORY"

        /// A directory tree for the scheme: `web/` (served) with a page of several files, a
        /// subframe page, a link inside and links out, a directory, a hidden file; `secret.txt`
        /// and `outside/` beside it.
        final class Site {
            let base: URL
            let web: URL

            init() throws {
                let manager = FileManager.default
                base = manager.temporaryDirectory.appendingPathComponent("asset-scheme-\(UUID().uuidString)")
                web = base.appendingPathComponent("web")
                for folder in ["web/sub", "web/dir", "outside"] {
                    try manager.createDirectory(
                        at: base.appendingPathComponent(folder), withIntermediateDirectories: true)
                }
                try write("secret.txt", AssetScheme.secret)
                try write("outside/file.txt", AssetScheme.secret)
                try write("web/index.html", Self.index)
                try write("web/app.js", "window.__appRan = 'classic';")
                try write("web/module.mjs", "import { v } from './lib.mjs'; window.__moduleRan = v;")
                try write("web/lib.mjs", "export const v = 'module';")
                try write("web/style.css", "#box { width: 123px; color: rgb(1, 2, 3); }")
                try write("web/data.json", #"{"answer":42}"#)
                try write("web/notes.txt", "plain text")
                try write("web/icon.svg", #"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#)
                try write("web/blob.bin", "bytes")
                try write("web/.hidden.txt", "hidden")
                try write("web/frames.html", Self.framesPage)
                try write("web/sub/frame.html", Self.framePage)
                try Data(base64Encoded: Self.png).map { try $0.write(to: web.appendingPathComponent("pic.png")) }
                try manager.createSymbolicLink(
                    atPath: web.appendingPathComponent("link-out.txt").path, withDestinationPath: "../secret.txt")
                try manager.createSymbolicLink(
                    atPath: web.appendingPathComponent("link-abs.txt").path,
                    withDestinationPath: base.appendingPathComponent("secret.txt").path)
                try manager.createSymbolicLink(
                    atPath: web.appendingPathComponent("outdir").path, withDestinationPath: "../outside")
                try manager.createSymbolicLink(
                    atPath: web.appendingPathComponent("link-in.json").path, withDestinationPath: "data.json")
            }

            deinit { try? FileManager.default.removeItem(at: base) }

            /// Makes `web/<name>` a sparse file of `bytes` zero bytes (nothing written to disk).
            func makeBlob(_ name: String = "blob.bin", bytes: Int) throws {
                let url = web.appendingPathComponent(name)
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown)
                }
                let handle = try FileHandle(forWritingTo: url)
                try handle.truncate(atOffset: UInt64(bytes))
                try handle.close()
            }

            private func write(_ path: String, _ text: String) throws {
                try Data(text.utf8).write(to: base.appendingPathComponent(path))
            }

            /// A 1 x 1 PNG.
            static let png =
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

            /// Page-world helper: `assetFetch(key, url, init)` stores `{status, type, nosniff, text}`,
            /// or `{status: -1, error}` when the fetch rejects, in `__fetched[key]`.
            static let fetchHelper = """
                <script>
                window.__fetched = {};
                function assetFetch(key, url, init) {
                  window.__fetched[key] = null;
                  fetch(url, init).then(function (r) {
                    return r.text().then(function (t) {
                      window.__fetched[key] = {status: r.status, type: r.headers.get('content-type'),
                        nosniff: r.headers.get('x-content-type-options'), text: t};
                    });
                  }, function (e) { window.__fetched[key] = {status: -1, error: String(e)}; });
                }
                </script>
                """

            static let index = E2EPage.html(
                title: "assets",
                head: fetchHelper + """
                    <link rel="stylesheet" href="style.css">
                    <script src="app.js"></script>
                    <script type="module" src="module.mjs"></script>
                    <script src="missing.js" onerror="window.__missingScript = 'error'" onload="window.__missingScript = 'load'"></script>
                    """,
                body: #"<div id="box">box</div><img id="pic" src="pic.png">"#)

            static let framesPage = E2EPage.html(
                title: "frames",
                head: """
                    <script>
                    window.__frames = {};
                    window.addEventListener('message', function (e) { window.__frames[e.data.step] = e.data; });
                    </script>
                    """,
                body: #"<iframe src="sub/frame.html"></iframe>"#)

            static let framePage = E2EPage.html(
                title: "frame",
                head: """
                    <script>
                    function report(step, p) {
                      p.then(function (v) { parent.postMessage({step: step, ok: true, data: v}, '*'); },
                        function (e) { parent.postMessage({step: step, ok: false, code: e.code, details: e.details}, '*'); });
                    }
                    parent.postMessage({step: 'origin', ok: true, data: String(self.origin)}, '*');
                    report('record', WebBridge.call('Record', {from: 'frame'}));
                    report('whoami', WebBridge.call('WhoAmI', {from: 'frame'}));
                    </script>
                    """)
        }

        /// Fetches each `(key, url)` in the page and returns what each gave.
        static func fetchAll(_ harness: E2EHarness, _ requests: [(String, String)], method: String = "GET")
            async throws -> [String: Fetched]
        {
            for (key, url) in requests {
                let initArgument = method == "GET" ? "{}" : "{method: \(E2EPage.jsLiteral(method)), body: 'x'}"
                try await harness.run(
                    "assetFetch(\(E2EPage.jsLiteral(key)), \(E2EPage.jsLiteral(url)), \(initArgument))")
            }
            let keys = requests.map { E2EPage.jsLiteral($0.0) }.joined(separator: ",")
            try await harness.waitFor("[\(keys)].every(function (k) { return window.__fetched[k] != null; })")
            return try await harness.value("window.__fetched", as: [String: Fetched].self)
        }

        /// A harness whose view serves `site` under `app://bundle`, with `policy`.
        static func harness(_ site: Site, policy: AccessPolicy) throws -> (E2EHarness, GTKAssetURIScheme) {
            let assets = try GTKAssetURIScheme(directory: site.web)
            let harness = try E2EHarness(policy: policy, configuration: GTKWebViewConfiguration(assetScheme: assets))
            return (harness, assets)
        }

        /// A view of `site` with the byte transport and two tasks: `Save` (the length of the
        /// page's binary value `file`) and `Make` (that many bytes back).
        static func binaryHarness(_ site: Site, policy: (GTKAssetURIScheme) -> AccessPolicy) throws -> (
            E2EHarness, GTKAssetURIScheme
        ) {
            struct SaveOptions: Decodable, Sendable { var file: BridgeBinary }
            let assets = try GTKAssetURIScheme(directory: site.web)
            let harness = try E2EHarness(
                policy: policy(assets), configuration: GTKWebViewConfiguration(assetScheme: assets),
                binaryLimits: BinaryLimits())
            let transfers = try #require(harness.transfers)
            try harness.router.register(
                ClosureTask(name: "Save") { (options: SaveOptions, context: CallContext) -> Int in
                    try await transfers.data(of: options.file, context: context).count
                })
            try harness.router.register(
                ClosureTask(name: "Make") { (count: Int, context: CallContext) -> BridgeBinary in
                    try await transfers.send(Data(repeating: 7, count: count), context: context)
                })
            return (harness, assets)
        }

        @Test(
            "a page of several files loads from app://bundle: its script, module script, stylesheet and image apply, with their content types",
            .timeLimit(.minutes(1)))
        func pageOfSeveralFiles() async throws {
            let site = try Site()
            let (harness, assets) = try Self.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            #expect(try await harness.value("document.title", as: String.self) == "assets")
            #expect(try await harness.value("window.__appRan", as: String.self) == "classic")
            try await harness.waitFor("window.__moduleRan === 'module'")
            #expect(
                try await harness.value("getComputedStyle(document.getElementById('box')).width", as: String.self)
                    == "123px")
            #expect(
                try await harness.value("getComputedStyle(document.getElementById('box')).color", as: String.self)
                    == "rgb(1, 2, 3)")
            #expect(try await harness.value("document.getElementById('pic').naturalWidth", as: Int.self) == 1)
            #expect(
                try await harness.value("window.__missingScript", as: String.self) == "error", "a missing script fails")

            let fetched = try await Self.fetchAll(
                harness,
                [
                    ("html", "index.html"), ("js", "app.js"), ("mjs", "lib.mjs"), ("css", "style.css"),
                    ("json", "data.json"), ("txt", "notes.txt"), ("svg", "icon.svg"), ("png", "pic.png"),
                    ("bin", "blob.bin"), ("query", "data.json?v=2"), ("absolute", "app://bundle/data.json"),
                ])
            let types: [String: String] = [
                "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
                "mjs": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
                "json": "application/json; charset=utf-8", "txt": "text/plain; charset=utf-8", "svg": "image/svg+xml",
                "png": "image/png", "bin": "application/octet-stream", "query": "application/json; charset=utf-8",
                "absolute": "application/json; charset=utf-8",
            ]
            for (key, type) in types {
                #expect(fetched[key]?.status == 200, "\(key): \(String(describing: fetched[key]))")
                #expect(fetched[key]?.type == type, "\(key)")
                #expect(fetched[key]?.nosniff == "nosniff", "\(key)")
            }
            #expect(fetched["json"]?.text == #"{"answer":42}"#)
            #expect(fetched["query"]?.text == #"{"answer":42}"#)
            await harness.close()
        }

        @Test(
            "the page's origin is app://bundle in both worlds; allowed by name its calls are admitted with that origin, otherwise forbidden",
            .timeLimit(.minutes(1)))
        func bridgeOrigin() async throws {
            let site = try Site()
            // Allowed by name, through the checked text form.
            let (allowed, assets) = try Self.harness(site, policy: try .checkedOrigins(["app://bundle"]))
            try await allowed.load(assets.uri(for: "index.html"))
            #expect(try await allowed.value("self.origin", as: String.self) == "app://bundle")
            #expect(try await allowed.value("location.origin", as: String.self) == "app://bundle")
            #expect(try await allowed.value("window.isSecureContext", as: Bool.self), "registered as secure")
            #expect(
                try await allowed.view.evaluateJavaScriptReturningJSON("self.origin", inWorld: allowed.host.world)
                    == #""app://bundle""#, "the relay's world reads the same origin")
            try await allowed.run("e2eCall('record', 'Record', {n: 1}); e2eCall('who', 'WhoAmI', {})")
            try await allowed.waitForSettled(["record", "who"])
            #expect(try await allowed.outcome("record").ok)
            #expect(try await allowed.outcome("record").data == ["n": 1])
            #expect(try await allowed.outcome("who").data == ["origin": "app://bundle", "mainFrame": true])
            let run = try #require(allowed.probe.runs(of: "Record").first)
            #expect(run.source == MessageSource(origin: assets.origin, isMainFrame: true))
            #expect(run.source.origin == SecurityOrigin("app://bundle"))
            await allowed.close()

            // Not allowed: forbidden before the task runs; the engine still names the origin.
            let (refused, _) = try Self.harness(site, policy: .origins(["https://app.example"]))
            try await refused.load(assets.uri(for: "index.html"))
            try await refused.run("e2eCall('record', 'Record', {}); e2eCall('who', 'WhoAmI', {})")
            try await refused.waitForSettled(["record", "who"])
            let outcome = try await refused.outcome("record")
            #expect(!outcome.ok)
            #expect(outcome.code == "forbidden")
            #expect(outcome.details?["reason"] == "origin_not_allowed")
            #expect(refused.probe.runs(of: "Record").isEmpty)
            #expect(try await refused.outcome("who").data == ["origin": "app://bundle", "mainFrame": true])
            await refused.close()
        }

        @Test(
            "a subframe from the scheme is a subframe: forbidden (subframe) under the main-frame policy, origin app://bundle",
            .timeLimit(.minutes(1)))
        func subframe() async throws {
            let site = try Site()
            let (harness, assets) = try Self.harness(
                site, policy: .origins([OriginPattern(origin: SecurityOrigin(scheme: "app", host: "bundle"))]))
            try await harness.load(assets.uri(for: "frames.html"))
            try await harness.waitFor(
                "['origin', 'record', 'whoami'].every(function (k) { return window.__frames[k]; })")
            let reports = try await harness.value("window.__frames", as: [String: FrameReport].self)
            #expect(reports["origin"]?.data == "app://bundle")
            #expect(reports["record"]?.ok == false)
            #expect(reports["record"]?.code == "forbidden")
            #expect(reports["record"]?.details?["reason"] == "subframe")
            #expect(reports["whoami"]?.data == ["origin": "app://bundle", "mainFrame": false])
            #expect(harness.probe.runs(of: "Record").isEmpty)
            // The main frame itself is admitted.
            try await harness.run("e2eCall('main', 'Record', {})")
            try await harness.waitForSettled(["main"])
            #expect(try await harness.outcome("main").ok)
            await harness.close()
        }

        @Test(
            "traversal (../, %2e%2e/, encoded slashes and backslashes), links out, directories, hidden and missing files and other methods fail without reading outside",
            .timeLimit(.minutes(1)))
        func traversalAndMissing() async throws {
            let site = try Site()
            let (harness, assets) = try Self.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let attempts: [(String, String)] = [
                ("dotdot", "../secret.txt"), ("dotdot-abs", "app://bundle/../secret.txt"),
                ("dotdot-sub", "sub/../../secret.txt"), ("enc-dots", "%2e%2e/secret.txt"),
                ("enc-dots-upper", "%2E%2E/secret.txt"), ("enc-slash", "..%2fsecret.txt"),
                ("enc-all", "%2e%2e%2fsecret.txt"), ("enc-deep", "sub/..%2f..%2fsecret.txt"),
                ("enc-backslash", "..%5csecret.txt"), ("backslash", "..\\secret.txt"),
                ("enc-absolute", "app://bundle/%2f" + site.base.path.dropFirst() + "/secret.txt"),
                ("double-slash", "app://bundle//" + site.base.path.dropFirst() + "/secret.txt"),
                ("link-out", "link-out.txt"), ("link-abs", "link-abs.txt"), ("link-dir", "outdir/file.txt"),
                ("directory", "dir"), ("directory-slash", "dir/"), ("root", "app://bundle/"), ("hidden", ".hidden.txt"),
                ("nul", "a%00b"), ("bad-encoding", "%zz"), ("bad-utf8", "%ff.txt"),
                ("long", String(repeating: "a/", count: 3000) + "b"), ("port", "app://bundle:99/data.json"),
                ("missing", "missing.txt"), ("missing-dir", "nope/missing.txt"),
            ]
            let opened = GTKAssetSchemeHandler.filesOpened.load(ordering: .relaxed)
            let fetched = try await Self.fetchAll(harness, attempts)
            #expect(GTKAssetSchemeHandler.filesOpened.load(ordering: .relaxed) == opened, "no attempt opened a file")
            for (key, _) in attempts {
                let result = try #require(fetched[key], "\(key)")
                #expect(result.status != 200, "\(key): \(result)")
                #expect(!(result.text ?? "").contains(Self.secret), "\(key)")
                #expect(!(result.error ?? "").contains(Self.secret), "\(key)")
            }
            #expect(fetched["missing"]?.status == 404)
            #expect(fetched["missing-dir"]?.status == 404)
            #expect(fetched["link-out"]?.status == 404)
            #expect(fetched["directory"]?.status == 404)
            #expect(fetched["enc-slash"]?.status == 400)

            // A link inside the directory is followed; other methods are refused.
            let inside = try await Self.fetchAll(harness, [("link-in", "link-in.json")])
            #expect(inside["link-in"]?.status == 200)
            #expect(inside["link-in"]?.text == #"{"answer":42}"#)
            let posted = try await Self.fetchAll(harness, [("post", "data.json")], method: "POST")
            #expect(posted["post"]?.status == 405)
            #expect(posted["post"]?.text?.contains("answer") == false)

            // The page is still there and the app still answers.
            #expect(try await harness.value("document.title", as: String.self) == "assets")
            await harness.close()
        }

        @Test(
            "a page of another origin in the view can neither fetch nor embed the scheme's files (403 before a file is opened)",
            .timeLimit(.minutes(1)))
        func otherOrigin() async throws {
            let site = try Site()
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(
                body: E2EPage.html(
                    title: "other", head: Site.fetchHelper, body: #"<img id="pic" src="app://bundle/pic.png">"#))
            let (harness, _) = try Self.harness(site, policy: .origins([]))
            try await harness.load(server.origin + "/")
            try await harness.waitFor("document.getElementById('pic').complete")
            let opened = GTKAssetSchemeHandler.filesOpened.load(ordering: .relaxed)
            let fetched = try await Self.fetchAll(harness, [("json", "app://bundle/data.json")])
            #expect(GTKAssetSchemeHandler.filesOpened.load(ordering: .relaxed) == opened, "refused before opening")
            #expect(fetched["json"]?.status == -1, "\(String(describing: fetched["json"]))")
            #expect(fetched["json"]?.text == nil)
            try await harness.waitFor("document.getElementById('pic').complete")
            // Served only while the view's main document is of the scheme (AssetSchemeAttack:
            // a thousand such embeds held a file and a stream each).
            #expect(try await harness.value("document.getElementById('pic').naturalWidth", as: Int.self) == 0)
            #expect(GTKAssetSchemeHandler.filesOpened.load(ordering: .relaxed) == opened, "nothing opened")
            await harness.close()
        }

        @Test("a large file is streamed whole; closing the view while files stream ends them", .timeLimit(.minutes(1)))
        func largeFile() async throws {
            let site = try Site()
            let size = 48 * 1024 * 1024
            try site.makeBlob(bytes: size)
            let (harness, assets) = try Self.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run(
                "window.__large = null; fetch('blob.bin').then(function (r) { return r.arrayBuffer(); }).then(function (b) { window.__large = b.byteLength; }, function (e) { window.__large = String(e); })"
            )
            try await harness.waitFor("window.__large !== null")
            #expect(try await harness.value("window.__large", as: Int.self) == size)
            // Closing the view with responses being opened and streamed ends them without a crash.
            try await harness.run("for (var i = 0; i < 8; i++) { fetch('blob.bin?' + i); fetch('data.json?' + i); }")
            await harness.close()
            await idle(.milliseconds(300))
        }

        @Test(
            "binary values cross between a page of the scheme and native (the byte transport sees the Origin app://bundle)",
            .timeLimit(.minutes(1)))
        func binaryValues() async throws {
            let site = try Site()
            let (harness, assets) = try Self.binaryHarness(site) { .origins([OriginPattern(origin: $0.origin)]) }
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run(
                "e2eCall('save', 'Save', {file: new Uint8Array([1, 2, 3, 4])}); e2eCall('make', 'Make', 5)")
            try await harness.waitForSettled(["save", "make"])
            let save = try await harness.outcome("save")
            #expect(save.ok, "\(save)")
            #expect(save.data == 4)
            #expect(try await harness.outcome("make").ok)
            #expect(
                try await harness.isTrue(
                    "window.__settled.make.data instanceof Uint8Array && window.__settled.make.data.length === 5"))
            await harness.close()
        }

        @Test("a view without the scheme cannot load its pages", .timeLimit(.minutes(1)))
        func viewWithoutScheme() async throws {
            let site = try Site()
            let assets = try GTKAssetURIScheme(directory: site.web)
            let harness = try E2EHarness(policy: .origins([]))
            let mark = harness.loadEvents.count
            try harness.view.load(uri: assets.uri(for: "index.html"))
            try await harness.waitForLoad(after: mark, what: "failed load")
            #expect(try await harness.value("document.title", as: String.self) != "assets")
            await harness.close()
        }
    }
}
#endif
