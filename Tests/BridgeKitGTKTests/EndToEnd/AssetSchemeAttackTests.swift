#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attacks on `GTKAssetURIScheme` through real WebKitGTK: abandoned and parallel streams,
    /// special files, odd URI spellings, the origin the bridge sees after a navigation, and the byte
    /// transport for a page the policy does not allow.
    @MainActor
    @Suite("Asset URI scheme attacks", .serialized)
    struct AssetSchemeAttack {
        typealias Site = AssetScheme.Site

        /// The test process's open descriptors of files under `folder` (the scheme handler runs in
        /// this process).
        static func descriptorCount(under folder: URL) -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            let prefix = folder.resolvingSymlinksInPath().path + "/"
            return names.filter { name in
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) ?? ""
                return target.hasPrefix(prefix)
            }.count
        }

        /// The test process's resident memory in bytes (`/proc/self/statm`).
        static func residentBytes() -> Int {
            let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
            let fields = text.split(separator: " ")
            guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }

        @Test(
            "another origin's page embedding a large file a thousand times holds neither a descriptor each nor gigabytes of the app's memory",
            .timeLimit(.minutes(1)))
        func otherOriginEmbedsAreBounded() async throws {
            let site = try Site()
            try site.makeBlob(bytes: 1024 * 1024 * 1024)
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "other", body: "other"))
            let (harness, _) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(server.origin + "/")
            let residentBefore = Self.residentBytes()
            try await harness.run(
                """
                for (let i = 0; i < 1200; i++) {
                  const v = document.createElement('img'); v.src = 'app://bundle/blob.bin?' + i; document.body.appendChild(v);
                }
                """)
            var peak = 0
            var peakResident = 0
            let clock = ContinuousClock()
            let until = clock.now.advanced(by: .seconds(8))
            while clock.now < until {
                peak = max(peak, Self.descriptorCount(under: site.web))
                peakResident = max(peakResident, Self.residentBytes())
                await idle(.milliseconds(100))
            }
            let grown = (peakResident - residentBefore) / (1024 * 1024)
            print("EMBEDS peak descriptors=\(peak), app resident grew by \(grown) MiB")
            #expect(peak <= 256, "served-file descriptors open at once for another origin's embeds: \(peak)")
            #expect(grown < 512, "the app's resident memory grew by \(grown) MiB in 8 s")
            // How the view copes (reported, not asserted: it depends on the machine's load).
            let started = clock.now
            let mark = harness.loadEvents.count
            try harness.view.load(uri: "about:blank")
            let loaded = await eventually(timeout: .seconds(10)) {
                harness.loadEvents.dropFirst(mark).contains(.finished)
            }
            print("EMBEDS navigation away took \(clock.now - started), finished=\(loaded)")
            await harness.close()
        }

        @Test(
            "streams the page abandons, and requests cancelled by a navigation, give their descriptors back",
            .timeLimit(.minutes(1)))
        func abandonedStreamsReleaseDescriptors() async throws {
            let site = try Site()
            try site.makeBlob(bytes: 256 * 1024 * 1024)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let baseline = Self.descriptorCount(under: site.web)

            // 1. Streams read a little and then aborted.
            try await harness.run(
                """
                window.__aborted = 0;
                for (let i = 0; i < 48; i++) {
                  const c = new AbortController();
                  fetch('blob.bin?a' + i, {signal: c.signal})
                    .then(r => r.body.getReader().read())
                    .then(() => { c.abort(); window.__aborted++; }, () => { window.__aborted++; });
                }
                """)
            try await harness.waitFor("window.__aborted === 48")
            let afterAbort = await eventually(timeout: .seconds(15), interval: .milliseconds(50)) {
                Self.descriptorCount(under: site.web) <= baseline
            }
            #expect(
                afterAbort,
                "after aborting 48 streams: \(Self.descriptorCount(under: site.web)) descriptors of served files, baseline \(baseline)"
            )

            // 2. Many requests, then a navigation away before they are answered.
            try await harness.run(
                "for (let i = 0; i < 400; i++) { fetch('data.json?n' + i); } for (let i = 0; i < 16; i++) { fetch('blob.bin?n' + i); }"
            )
            try await harness.load(assets.uri(for: "notes.txt"))
            let afterNavigation = await eventually(timeout: .seconds(15), interval: .milliseconds(50)) {
                Self.descriptorCount(under: site.web) <= baseline
            }
            #expect(
                afterNavigation,
                "after navigating away from 416 requests: \(Self.descriptorCount(under: site.web)) descriptors of served files, baseline \(baseline)"
            )

            // 3. The view still serves.
            try await harness.load(assets.uri(for: "index.html"))
            #expect(try await harness.value("document.title", as: String.self) == "assets")
            await harness.close()
        }

        @Test(
            "an empty file, a socket and odd URI spellings are answered (no hang, no secret)",
            .timeLimit(.minutes(1)))
        func oddFilesAndSpellings() async throws {
            let site = try Site()
            try Data().write(to: site.web.appendingPathComponent("empty.txt"))
            try Data().write(to: site.web.appendingPathComponent("empty.js"))
            // A Unix socket in the folder.
            let socketPath = site.web.appendingPathComponent("sock").path
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                socketPath.utf8CString.withUnsafeBytes { buffer.copyMemory(from: $0) }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(bound == 0)
            listen(fd, 1)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let fetched = try await AssetScheme.fetchAll(
                harness,
                [
                    ("empty", "empty.txt"), ("sock", "sock"), ("upper", "APP://BUNDLE/data.json"),
                    ("upper-host", "app://BUNDLE/data.json"), ("dot-host", "app://bundle./data.json"),
                    ("enc-host", "app://bund%6Ce/data.json"), ("user", "app://user@bundle/data.json"),
                    ("port80", "app://bundle:80/data.json"), ("frag", "data.json#x/../../secret.txt"),
                    ("query", "data.json?/../../secret.txt"), ("ctrl", "data%0A.json"),
                    ("tab", "data\t.json"), ("enc-unreserved", "%64ata.json"),
                    ("overlong", "%C0%AE%C0%AE/secret.txt"), ("fullwidth", "%EF%BC%8E%EF%BC%8E/secret.txt"),
                ])
            #expect(fetched["empty"]?.status == 200, "\(String(describing: fetched["empty"]))")
            #expect(fetched["empty"]?.text == "")
            #expect(fetched["sock"]?.status == 404, "\(String(describing: fetched["sock"]))")
            for (key, value) in fetched {
                #expect(!(value.text ?? "").contains(AssetScheme.secret), "\(key)")
            }
            print("ODD-SPELLINGS \(fetched.map { "\($0.key)=\($0.value.status)" }.sorted())")
            try await harness.run(
                "window.__emptyScript = null; var s = document.createElement('script'); s.src = 'empty.js'; s.onload = function () { window.__emptyScript = 'load'; }; s.onerror = function () { window.__emptyScript = 'error'; }; document.head.appendChild(s);"
            )
            try await harness.waitFor("window.__emptyScript !== null")
            #expect(try await harness.value("window.__emptyScript", as: String.self) == "load")
            await harness.close()
        }

        /// A reader script for a frame or worker: fetches `url` and posts `{step, status, text}` (or
        /// `{step, status: -1, error}`) to `target`.
        static func reader(_ step: String, _ url: String, post: String = "parent.postMessage(m, '*')") -> String {
            """
            fetch('\(url)').then(r => r.text().then(t => ({step: '\(step)', status: r.status, text: t})),
              e => ({step: '\(step)', status: -1, error: String(e)})).then(m => { \(post); });
            """
        }

        @Test(
            "sandboxed, data:, http frames and a blob: worker of an app page cannot read app files unless same-origin",
            .timeLimit(.minutes(1)))
        func framesAndWorkers() async throws {
            let site = try Site()
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/reader"] = .init(
                body: "<script>" + Self.reader("http-frame", "app://bundle/data.json") + "</script>")
            let (harness, assets) = try AssetScheme.harness(site, policy: try .checkedOrigins(["app://bundle"]))
            try await harness.load(assets.uri(for: "index.html"))
            let readerScript = Self.reader("sandboxed", "app://bundle/data.json")
            let dataScript = Self.reader("data-frame", "app://bundle/data.json")
            let workerScript = Self.reader("worker", "app://bundle/data.json", post: "postMessage(m)")
            let sandboxedSrc = Self.reader("sandboxed-src", "app://bundle/data.json")
            try Data(("<script>" + sandboxedSrc + "</script>").utf8).write(
                to: site.web.appendingPathComponent("reader.html"))
            try await harness.run(
                """
                window.__x = {};
                addEventListener('message', e => { if (e.data && e.data.step) window.__x[e.data.step] = e.data; });
                const f1 = document.createElement('iframe'); f1.sandbox = 'allow-scripts';
                f1.srcdoc = '<script>' + \(E2EPage.jsLiteral(readerScript)) + '<' + '/script>'; document.body.appendChild(f1);
                const f2 = document.createElement('iframe');
                f2.src = 'data:text/html,' + encodeURIComponent('<script>' + \(E2EPage.jsLiteral(dataScript)) + '<' + '/script>');
                document.body.appendChild(f2);
                const f3 = document.createElement('iframe'); f3.src = \(E2EPage.jsLiteral(server.origin + "/reader"));
                document.body.appendChild(f3);
                const f4 = document.createElement('iframe'); f4.sandbox = 'allow-scripts'; f4.src = 'reader.html';
                document.body.appendChild(f4);
                const w = new Worker(URL.createObjectURL(new Blob([\(E2EPage.jsLiteral(workerScript))], {type: 'text/javascript'})));
                w.onmessage = e => { window.__x[e.data.step] = e.data; };
                """)
            try await harness.waitFor(
                "['sandboxed', 'data-frame', 'http-frame', 'sandboxed-src', 'worker'].every(k => window.__x[k])",
                timeout: .seconds(20))
            struct Read: Decodable {
                var status: Int
                var text: String?
                var error: String?
            }
            let reads = try await harness.value("window.__x", as: [String: Read].self)
            print("FRAMES \(reads.mapValues { "\($0.status)" })")
            for key in ["sandboxed", "data-frame", "http-frame", "sandboxed-src"] {
                let text: String = reads[key]?.text ?? ""
                #expect(!text.contains("answer"), "\(key): \(String(describing: reads[key]))")
            }
            #expect(reads["worker"]?.text == #"{"answer":42}"#, "a worker of the page is the page's origin")
            await harness.close()
        }

        @Test(
            "a link in the folder through a directory whose name is not UTF-8 cannot serve a file outside it",
            .timeLimit(.minutes(1)))
        func nonUTF8DirectoryLink() async throws {
            let site = try Site()
            func cPath(_ bytes: [UInt8]) -> [CChar] { (bytes + [0]).map { CChar(bitPattern: $0) } }
            let web = Array(site.web.path.utf8)
            let odd = web + Array("/a".utf8) + [0xFF]
            #expect(mkdir(cPath(odd), 0o700) == 0)
            try Data("decoy-inside".utf8).write(to: URL(fileURLWithPath: site.web.path + "/decoy.txt"))
            #expect(rename(site.web.path + "/decoy.txt", cPath(odd + Array("/file.txt".utf8))) == 0)
            // The name `String(cString:)` turns the odd one into: a link out of the folder.
            #expect(symlink(site.base.appendingPathComponent("outside").path, site.web.path + "/a\u{FFFD}") == 0)
            #expect(symlink(cPath(Array("a".utf8) + [0xFF] + Array("/file.txt".utf8)), site.web.path + "/p") == 0)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let fetched = try await AssetScheme.fetchAll(harness, [("p", "p"), ("direct", "a%EF%BF%BD/file.txt")])
            print("NONUTF8 \(fetched)")
            for (key, value) in fetched {
                let text: String = value.text ?? ""
                #expect(!text.contains(AssetScheme.secret), "\(key): \(value)")
            }
            await harness.close()
        }

        @Test(
            "after an app://bundle page navigates to an http page, calls from the new document are attributed to http, not app://bundle",
            .timeLimit(.minutes(1)))
        func navigationAwayIsNotAttributedToTheScheme() async throws {
            let site = try Site()
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "other", body: "other"))
            let (harness, assets) = try AssetScheme.harness(site, policy: try .checkedOrigins(["app://bundle"]))
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run("e2eCall('first', 'Record', {n: 1})")
            try await harness.waitForSettled(["first"])
            #expect(try await harness.outcome("first").ok)
            // The page itself navigates (not the app), then the new document calls at once.
            let mark = harness.loadEvents.count
            try await harness.run("location.href = \(E2EPage.jsLiteral(server.origin + "/"))")
            try await harness.waitForLoad(after: mark, what: "navigation to http")
            try await harness.run("e2eCall('late', 'Record', {n: 2}); e2eCall('who', 'WhoAmI', {})")
            try await harness.waitForSettled(["late", "who"])
            let late = try await harness.outcome("late")
            #expect(!late.ok)
            #expect(late.code == "forbidden")
            #expect(harness.probe.runs(of: "Record").count == 1)
            #expect(try await harness.outcome("who").data?["origin"] == .string(server.origin))
            await harness.close()
        }

        @Test(
            "the byte transport refuses an app://bundle page the policy does not allow",
            .timeLimit(.minutes(1)))
        func binaryTransportRefusesDisallowedSchemePage() async throws {
            let site = try Site()
            let (harness, assets) = try AssetScheme.binaryHarness(site) { _ in
                .origins([OriginPattern("https://app.example")])
            }
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run(
                "e2eCall('save', 'Save', {file: new Uint8Array([1, 2, 3, 4])}); e2eCall('make', 'Make', 5)")
            try await harness.waitForSettled(["save", "make"])
            #expect(try await harness.outcome("save").ok == false)
            #expect(try await harness.outcome("save").code == "forbidden")
            #expect(try await harness.outcome("make").ok == false)
            #expect(harness.probe.runs(of: "Save").isEmpty)
            await harness.close()
        }
    }
}
#endif
