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
            let handle = try FileHandle(forWritingTo: site.web.appendingPathComponent("blob.bin"))
            try handle.truncate(atOffset: 1024 * 1024 * 1024)
            try handle.close()
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
            let loaded = await eventually(timeout: .seconds(10)) { harness.loadEvents.dropFirst(mark).contains(.finished) }
            print("EMBEDS navigation away took \(clock.now - started), finished=\(loaded)")
            await harness.close()
        }

        @Test(
            "streams the page abandons, and requests cancelled by a navigation, give their descriptors back",
            .timeLimit(.minutes(1)))
        func abandonedStreamsReleaseDescriptors() async throws {
            let site = try Site()
            let handle = try FileHandle(forWritingTo: site.web.appendingPathComponent("blob.bin"))
            try handle.truncate(atOffset: 256 * 1024 * 1024)
            try handle.close()
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
            #expect(afterAbort, "after aborting 48 streams: \(Self.descriptorCount(under: site.web)) descriptors of served files, baseline \(baseline)")

            // 2. Many requests, then a navigation away before they are answered.
            try await harness.run(
                "for (let i = 0; i < 400; i++) { fetch('data.json?n' + i); } for (let i = 0; i < 16; i++) { fetch('blob.bin?n' + i); }")
            try await harness.load(assets.uri(for: "notes.txt"))
            let afterNavigation = await eventually(timeout: .seconds(15), interval: .milliseconds(50)) {
                Self.descriptorCount(under: site.web) <= baseline
            }
            #expect(
                afterNavigation,
                "after navigating away from 416 requests: \(Self.descriptorCount(under: site.web)) descriptors of served files, baseline \(baseline)")

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
            struct SaveOptions: Decodable, Sendable { var file: BridgeBinary }
            let site = try Site()
            let assets = try GTKAssetURIScheme(directory: site.web)
            let harness = try E2EHarness(
                policy: .origins([OriginPattern("https://app.example")]),
                configuration: GTKWebViewConfiguration(assetScheme: assets), binaryLimits: BinaryLimits())
            let transfers = try #require(harness.transfers)
            try harness.router.register(
                ClosureTask(name: "Save") { (options: SaveOptions, context: CallContext) -> Int in
                    try await transfers.data(of: options.file, context: context).count
                })
            try harness.router.register(
                ClosureTask(name: "Make") { (count: Int, context: CallContext) -> BridgeBinary in
                    try await transfers.send(Data(repeating: 7, count: count), context: context)
                })
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
