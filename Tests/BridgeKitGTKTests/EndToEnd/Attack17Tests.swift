#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import CWebKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 17: the flow control of outbound bodies (`DeliveryWindow`, `GTKDeliveryGate`,
    /// `GTKResponsePump`) against hostile or unlucky pages in real WebKitGTK.
    @MainActor
    @Suite("Attack 17", .serialized)
    struct Attack17 {
        typealias Site = AssetScheme.Site
        typealias Hashed = AssetSchemeFlow.Hashed

        /// Every descriptor the test process has open.
        static func descriptorTotal() -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
        }

        /// Open Unix sockets of the test process.
        static func socketCount() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return names.filter { name in
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) ?? "")
                    .hasPrefix("socket:")
            }.count
        }

        /// Fetches `d.bin` (12 MiB + 3 of the pattern, `AssetSchemeFlow.writePattern`) in `harness`'s
        /// page and expects it whole and in order: the view still streams.
        static func expectStreamsWhole(_ harness: E2EHarness, hash: UInt32) async throws {
            try await harness.run(AssetSchemeFlow.hashScript("d.bin"))
            try await harness.waitFor("window.__hashes && window.__hashes['d.bin']")
            #expect(
                try await harness.value("window.__hashes['d.bin']", as: Hashed.self)
                    == Hashed(n: 12 << 20 | 3, hash: hash))
        }

        static func terminateWebProcess(_ harness: E2EHarness) {
            _ = harness.view.withOpenCore { core in
                webkit_web_view_terminate_web_process(core.webView)
            }
        }

        /// Starts a synchronous `XMLHttpRequest` of `path` in `harness`'s page after `delay` ms
        /// (from a timer, so the evaluation that starts it returns first), which sets
        /// `window[key]` to `{n, text, ms}` or `{error}` when it returns.
        static func startSyncRequest(_ harness: E2EHarness, _ path: String, into key: String, after delay: Int = 0)
            async throws
        {
            try await harness.run(
                """
                setTimeout(function () {
                  var t = Date.now(), x = new XMLHttpRequest(); x.open('GET', '\(path)', false);
                  try {
                    x.send();
                    window.\(key) = {n: x.responseText.length, text: x.responseText.slice(0, 64), ms: Date.now() - t};
                  } catch (e) { window.\(key) = {error: String(e)}; }
                }, \(delay));
                """)
        }

        /// Waits up to `seconds` for the request `startSyncRequest` put under `key` to return, and
        /// prints its result; false when it did not return in time (the page hangs).
        static func syncRequestReturns(_ harness: E2EHarness, _ key: String, label: String, within seconds: Int)
            async -> Bool
        {
            do {
                try await withDeadline(label, timeout: .seconds(seconds)) {
                    try await harness.waitFor("window.\(key) != null", timeout: .seconds(seconds))
                }
                print("ATTACK17 \(label):", (try? await harness.json("window.\(key)")) ?? "?")
                return true
            } catch {
                print("ATTACK17 \(label) never finished: \(error)")
                return false
            }
        }

        // MARK: 1. Synchronous XHR

        @Test(
            "a synchronous XHR of an asset file larger than the budget completes (it does over HTTP)",
            .timeLimit(.minutes(1)))
        func syncXHRLargerThanBudget() async throws {
            let site = try Site()
            try site.makeBlob("small4.bin", bytes: 4 << 20)
            try site.makeBlob("big16.bin", bytes: 16 << 20)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            // Control: 4 MiB (below the budget) arrives.
            try await Self.startSyncRequest(harness, "small4.bin", into: "__sync4")
            #expect(await Self.syncRequestReturns(harness, "__sync4", label: "sync 4 MiB", within: 15))
            try await Self.startSyncRequest(harness, "big16.bin", into: "__sync16")
            let finished = await Self.syncRequestReturns(harness, "__sync16", label: "sync 16 MiB", within: 20)
            #expect(finished, "a synchronous XHR of a 16 MiB app:// file hung the page for 20 s")
            Self.terminateWebProcess(harness)
            await harness.close()
        }

        @Test(
            "a synchronous XHR of a small asset file while a large fetch streams completes",
            .timeLimit(.minutes(1)))
        func syncXHRSmallWhileStreaming() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run("fetch('huge.bin').then(function (r) { window.__streaming = true; });")
            try await Self.startSyncRequest(harness, "notes.txt", into: "__sync", after: 500)
            let finished = await Self.syncRequestReturns(
                harness, "__sync", label: "sync small while streaming", within: 20)
            #expect(
                finished, "a synchronous XHR of a 10-byte app:// file hung the page for 20 s while a fetch streamed")
            // Another view meanwhile.
            let other = try Site()
            let (otherHarness, otherAssets) = try AssetScheme.harness(other, policy: .origins([]))
            try await otherHarness.load(otherAssets.uri(for: "index.html"))
            let otherFetched = try await AssetScheme.fetchAll(otherHarness, [("d", "data.json")])
            print("ATTACK17 another view while the first hangs: \(otherFetched["d"]?.status ?? -2)")
            await otherHarness.close()
            // The hung view navigating away.
            var navigated = true
            do {
                try await withDeadline("navigation of the hung view", timeout: .seconds(10)) {
                    try await harness.load(assets.uri(for: "notes.txt"))
                }
            } catch { navigated = false }
            print("ATTACK17 the hung view navigated away within 10 s: \(navigated)")
            Self.terminateWebProcess(harness)
            await harness.close()
        }

        @Test(
            "control: a synchronous XHR of 16 MiB over HTTP completes",
            .timeLimit(.minutes(1)))
        func syncXHRLargeOverHTTP() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "other", body: "other"))
            server.routes["/big"] = .init(
                contentType: "application/octet-stream", body: String(repeating: "a", count: 16 << 20))
            let harness = try E2EHarness(policy: .origins([]))
            try await harness.load(server.origin + "/")
            try await Self.startSyncRequest(harness, "/big", into: "__sync16")
            #expect(await Self.syncRequestReturns(harness, "__sync16", label: "sync 16 MiB over HTTP", within: 20))
            #expect(try await harness.value("window.__sync16.n", as: Int.self) == 16 << 20)
            await harness.close()
        }

        /// Bytes this process read with read(2)/recv (`rchar` of /proc/self/io): WebKit's reads of
        /// the response sockets happen in this process.
        static func readChars() -> Int {
            let text = (try? String(contentsOfFile: "/proc/self/io", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.hasPrefix("rchar:") {
                return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
            }
            return 0
        }

        @Test(
            "streams of a document left for another site stop: no file kept open, no bytes read",
            .timeLimit(.minutes(1)))
        func crossSiteLeftStreamsStop() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "other", body: "other"))
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let fdBefore = AssetSchemeAttack.descriptorCount(under: site.web)
            try await harness.run("for (let i = 0; i < 16; i++) { fetch('huge.bin?' + i); }")
            await idle(.milliseconds(300))
            try await harness.load(server.origin + "/")
            await idle(.seconds(2))
            let fdAt2 = AssetSchemeAttack.descriptorCount(under: site.web)
            let read0 = Self.readChars()
            await idle(.seconds(5))
            let read5 = Self.readChars()
            let fdAt7 = AssetSchemeAttack.descriptorCount(under: site.web)
            let mib = (read5 - read0) >> 20
            print(
                "ATTACK17 left for another site: files open before \(fdBefore), +2 s \(fdAt2), +7 s \(fdAt7); read \(mib) MiB in 5 s"
            )
            #expect(fdAt7 <= fdBefore, "files open 7 s after leaving: \(fdAt7), before \(fdBefore)")
            #expect(mib < 64, "the app still read \(mib) MiB of the left document's bodies in 5 s")
            await harness.close()
        }

        @Test(
            "streams of a document left for a same-site page (back/forward cache) stop",
            .timeLimit(.minutes(1)))
        func sameSiteLeftStreamsStop() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let fdBefore = AssetSchemeAttack.descriptorCount(under: site.web)
            try await harness.run("for (let i = 0; i < 16; i++) { fetch('huge.bin?' + i); }")
            await idle(.milliseconds(300))
            try await harness.load(assets.uri(for: "frames.html"))
            await idle(.seconds(2))
            let read0 = Self.readChars()
            await idle(.seconds(3))
            let mib = (Self.readChars() - read0) >> 20
            let fd = AssetSchemeAttack.descriptorCount(under: site.web)
            print("ATTACK17 left for same site: descriptors before \(fdBefore), after \(fd); read \(mib) MiB in 3 s")
            #expect(fd <= fdBefore)
            #expect(mib < 64)
            await harness.close()
        }

        @Test("a view hung by a synchronous XHR of 16 MiB closes, and a new view streams", .timeLimit(.minutes(1)))
        func closeHungView() async throws {
            let site = try Site()
            try site.makeBlob("big16.bin", bytes: 16 << 20)
            let hash = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("d.bin"), size: 12 << 20 | 3)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run(
                "setTimeout(function () { var x = new XMLHttpRequest(); x.open('GET', 'big16.bin', false); x.send(); }, 0);"
            )
            await idle(.seconds(2))
            var closed = true
            do {
                try await withDeadline("close of the hung view", timeout: .seconds(15)) { await harness.close() }
            } catch { closed = false }
            print("ATTACK17 hung view closed: \(closed)")
            #expect(closed)
            let (second, assets2) = try AssetScheme.harness(site, policy: .origins([]))
            try await second.load(assets2.uri(for: "index.html"))
            try await Self.expectStreamsWhole(second, hash: hash)
            await second.close()
        }

        // MARK: 2. Descriptors of many open streams

        @Test(
            "a same-origin page opening 600 large streams does not make the app hold a descriptor pair each",
            .timeLimit(.minutes(1)))
        func manyStreamsDescriptors() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let fdBefore = Self.descriptorTotal()
            let socketsBefore = Self.socketCount()
            let residentBefore = AssetSchemeAttack.residentBytes()
            try await harness.run(
                "window.__r = []; for (let i = 0; i < 600; i++) { fetch('huge.bin?' + i).then(r => window.__r.push(r)); }"
            )
            var peakFD = 0
            var peakSockets = 0
            var peakResident = 0
            let clock = ContinuousClock()
            let until = clock.now.advanced(by: .seconds(8))
            while clock.now < until {
                peakFD = max(peakFD, Self.descriptorTotal())
                peakSockets = max(peakSockets, Self.socketCount())
                peakResident = max(peakResident, AssetSchemeAttack.residentBytes())
                await idle(.milliseconds(200))
            }
            let grown = (peakResident - residentBefore) >> 20
            print(
                "ATTACK17 600 streams: descriptors \(fdBefore) -> peak \(peakFD), sockets \(socketsBefore) -> \(peakSockets), resident +\(grown) MiB"
            )
            #expect(
                peakFD - fdBefore < 256, "the app held \(peakFD - fdBefore) more descriptors for one page's streams")
            Self.terminateWebProcess(harness)
            await harness.close()
        }

        // MARK: 3. Small files waiting in the gate

        @Test(
            "small files a busy page asked for do not pile up in the app's memory while the gate waits",
            .timeLimit(.minutes(1)))
        func smallFilesPileUpWhileBusy() async throws {
            let site = try Site()
            _ = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("small.bin"), size: 65_536)
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let residentBefore = AssetSchemeAttack.residentBytes()
            // One large stream fills the window, then 3000 small files, then the page is busy.
            try await harness.run(
                """
                fetch('huge.bin');
                setTimeout(function () {
                  for (let i = 0; i < 3000; i++) { fetch('small.bin?' + i); }
                  setTimeout(function () { var t = Date.now(); while (Date.now() - t < 8000) {} }, 50);
                }, 300);
                """)
            var peakResident = 0
            let clock = ContinuousClock()
            let until = clock.now.advanced(by: .seconds(7))
            while clock.now < until {
                peakResident = max(peakResident, AssetSchemeAttack.residentBytes())
                await idle(.milliseconds(100))
            }
            let grown = (peakResident - residentBefore) >> 20
            print("ATTACK17 3000 small files while busy: app resident +\(grown) MiB")
            // Before the 32-per-view cap: +189–213 MiB; with it +55–58 (WebKit's own cost per request).
            #expect(grown < 128, "the app's resident memory grew by \(grown) MiB")
            Self.terminateWebProcess(harness)
            await harness.close()
        }

        @Test(
            "a page that is not busy, asking for 6000 small files at once, does not pile them up in the app's memory",
            .timeLimit(.minutes(1)))
        func smallFilesFlood() async throws {
            let site = try Site()
            _ = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("small.bin"), size: 65_536)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let residentBefore = AssetSchemeAttack.residentBytes()
            try await harness.run(
                """
                window.__done = 0; window.__ok = 0;
                for (let i = 0; i < 6000; i++) {
                  fetch('small.bin?' + i).then(r => r.arrayBuffer()).then(b => { window.__done++; if (b.byteLength === 65536) window.__ok++; }, () => { window.__done++; });
                }
                """)
            var peakResident = 0
            let clock = ContinuousClock()
            let started = clock.now
            var finished = false
            while clock.now < started.advanced(by: .seconds(30)) {
                peakResident = max(peakResident, AssetSchemeAttack.residentBytes())
                if (try? await harness.isTrue("window.__done === 6000")) == true {
                    finished = true
                    break
                }
                await idle(.milliseconds(100))
            }
            let grown = (peakResident - residentBefore) >> 20
            print(
                "ATTACK17 6000 small files, page not busy: finished=\(finished) in \(clock.now - started), app resident +\(grown) MiB, whole:",
                (try? await harness.json("window.__ok")) ?? .null)
            // Before the 32-per-view cap: +400–487 MiB; with it about +79 (WebKit's own cost per request).
            #expect(grown < 256, "the app's resident memory grew by \(grown) MiB")
            await harness.close()
        }

        // MARK: 4. Web process killed mid-stream

        @Test(
            "after the web process is killed mid-stream the view's next document streams files and every descriptor closes",
            .timeLimit(.minutes(1)))
        func killedWebProcessMidStream() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let hash = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("d.bin"), size: 12 << 20 | 3)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let fdBefore = AssetSchemeAttack.descriptorCount(under: site.web)
            try await harness.run("for (let i = 0; i < 8; i++) { fetch('huge.bin?' + i); }")
            await idle(.milliseconds(700))
            let fdDuring = AssetSchemeAttack.descriptorCount(under: site.web)
            Self.terminateWebProcess(harness)
            await idle(.milliseconds(500))
            try await harness.load(assets.uri(for: "index.html"))
            try await Self.expectStreamsWhole(harness, hash: hash)
            let closed = await eventually(timeout: .seconds(10), interval: .milliseconds(50)) {
                AssetSchemeAttack.descriptorCount(under: site.web) <= fdBefore
            }
            print(
                "ATTACK17 kill: descriptors \(fdBefore), during \(fdDuring), after \(AssetSchemeAttack.descriptorCount(under: site.web))"
            )
            #expect(
                closed,
                "descriptors after the kill: \(AssetSchemeAttack.descriptorCount(under: site.web)), before \(fdBefore)")
            await harness.close()
        }

        // MARK: 5. Navigations mid-stream

        @Test(
            "a cross-site navigation and back while the window is full: the app:// document streams again",
            .timeLimit(.minutes(1)))
        func crossSiteNavigationMidStream() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let hash = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("d.bin"), size: 12 << 20 | 3)
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "other", body: "other"))
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let fdBefore = AssetSchemeAttack.descriptorCount(under: site.web)
            try await harness.run("for (let i = 0; i < 16; i++) { fetch('huge.bin?' + i); }")
            await idle(.milliseconds(300))
            try await harness.load(server.origin + "/")
            try await harness.load(assets.uri(for: "index.html"))
            try await Self.expectStreamsWhole(harness, hash: hash)
            let closed = await eventually(timeout: .seconds(10), interval: .milliseconds(50)) {
                AssetSchemeAttack.descriptorCount(under: site.web) <= fdBefore
            }
            // Printed only: the new web process's connections add WebKit's own descriptors.
            print(
                "ATTACK17 cross-site and back: descriptors \(AssetSchemeAttack.descriptorCount(under: site.web)), before \(fdBefore), closed=\(closed)"
            )
            await harness.close()
        }

        @Test(
            "history.back() into the back/forward cache while streams run: the restored document streams again",
            .timeLimit(.minutes(1)))
        func backForwardMidStream() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let hash = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("d.bin"), size: 12 << 20 | 3)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run("window.__mark = 'first'; for (let i = 0; i < 16; i++) { fetch('huge.bin?' + i); }")
            await idle(.milliseconds(300))
            try await harness.load(assets.uri(for: "notes.txt"))
            try await harness.run("history.back()")
            try await harness.waitFor("location.pathname.endsWith('index.html') && document.readyState === 'complete'")
            print("ATTACK17 bfcache mark:", (try? await harness.json("window.__mark ?? null")) ?? "?")
            try await Self.expectStreamsWhole(harness, hash: hash)
            await harness.close()
        }

        @Test(
            "window.stop() and document.open() mid-stream: descriptors close and the document streams again",
            .timeLimit(.minutes(1)))
        func stopAndOpenMidStream() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let hash = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("d.bin"), size: 12 << 20 | 3)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            let fdBefore = AssetSchemeAttack.descriptorCount(under: site.web)
            try await harness.run("for (let i = 0; i < 16; i++) { fetch('huge.bin?s' + i); }")
            await idle(.milliseconds(300))
            try await harness.run("window.stop()")
            let afterStop = await eventually(timeout: .seconds(10), interval: .milliseconds(50)) {
                AssetSchemeAttack.descriptorCount(under: site.web) <= fdBefore
            }
            print(
                "ATTACK17 after stop: \(AssetSchemeAttack.descriptorCount(under: site.web)) (before \(fdBefore)), ok=\(afterStop)"
            )
            try await harness.run("for (let i = 0; i < 16; i++) { fetch('huge.bin?o' + i); }")
            await idle(.milliseconds(300))
            try await harness.run("document.open(); document.write('<p>reopened</p>'); document.close();")
            let afterOpen = await eventually(timeout: .seconds(10), interval: .milliseconds(50)) {
                AssetSchemeAttack.descriptorCount(under: site.web) <= fdBefore
            }
            print(
                "ATTACK17 after open: \(AssetSchemeAttack.descriptorCount(under: site.web)) (before \(fdBefore)), ok=\(afterOpen)"
            )
            try await Self.expectStreamsWhole(harness, hash: hash)
            #expect(afterStop)
            // document.open() keeps the window's fetches running (engine behaviour, as over HTTP): printed only.
            _ = afterOpen
            await harness.close()
        }

        @Test(
            "eight downloads read whole and eight held unread at once: the read ones arrive whole and in order and end (the held ones stay open, as the page holds them)",
            .timeLimit(.minutes(1)))
        func manyDownloads() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: BinaryStream.page)
            let (harness, ends) = try BinaryStream.harness(server)
            try await harness.load(server.origin + "/")
            let residentBefore = AssetSchemeAttack.residentBytes()
            for i in 0..<8 {
                try await harness.run("e2eRead('r\(i)', {count: 48, pauseMs: 0})")
                try await harness.run("e2eRead('h\(i)', {count: 48, pauseMs: 0}, null, 262144, 'hold')")
            }
            var peak = 0
            let done = await eventually(timeout: .seconds(40), interval: .milliseconds(50)) {
                peak = max(peak, AssetSchemeAttack.residentBytes())
                return ends.recordList.count >= 8
            }
            // The page reads the last bytes after native wrote them: wait for the page's ends.
            try await harness.waitFor("[0,1,2,3,4,5,6,7].every(i => window.__streams['r' + i].end != null)")
            let read = try await harness.value(
                "[0,1,2,3,4,5,6,7].map(i => window.__streams['r' + i]).map(s => s.end + ':' + s.bytes + ':' + s.sumOk)",
                as: [String].self)
            print(
                "ATTACK17 downloads: records \(ends.recordList.count) \(ends.recordList.map(\.outcome)), read \(read), resident +\((peak - residentBefore) >> 20) MiB"
            )
            #expect(done)
            #expect(read == Array(repeating: "closed:\(48 * 262144):true", count: 8))
            await harness.close()
        }

        @Test(
            "a download to a page busy for 5 s resumes and ends whole after",
            .timeLimit(.minutes(1)))
        func downloadToBusyPage() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: BinaryStream.page)
            let (harness, ends) = try BinaryStream.harness(server)
            try await harness.load(server.origin + "/")
            try await harness.run(
                "e2eRead('b', {count: 120, pauseMs: 0}); setTimeout(function () { var t = Date.now(); while (Date.now() - t < 5000) {} }, 100);"
            )
            let done = await eventually(timeout: .seconds(30), interval: .milliseconds(50)) {
                ends.recordList.count == 1
            }
            #expect(done)
            try await harness.waitFor("window.__streams.b.ends === 1")
            #expect(try await harness.value("window.__streams.b.bytes", as: Int.self) == 120 * 262144)
            #expect(try await harness.isTrue("window.__streams.b.sumOk"))
            await harness.close()
        }

        @Test(
            "closing a view whose busy page has thousands of small files and 16 streams waiting gives the memory and descriptors back",
            .timeLimit(.minutes(1)))
        func closeWithWaitingRequests() async throws {
            let site = try Site()
            _ = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("small.bin"), size: 65_536)
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            func settledResident() async -> Int {
                await idle(.seconds(3))
                if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
                    _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
                }
                return AssetSchemeAttack.residentBytes()
            }
            // Control: the same view without the requests.
            do {
                let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
                try await harness.load(assets.uri(for: "index.html"))
                await harness.close()
            }
            let fdBefore = AssetSchemeAttack.descriptorCount(under: site.web)
            let residentBefore = await settledResident()
            do {
                let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
                try await harness.load(assets.uri(for: "index.html"))
                try await harness.run(
                    """
                    for (let i = 0; i < 16; i++) { fetch('huge.bin?' + i); }
                    setTimeout(function () {
                      for (let i = 0; i < 3000; i++) { fetch('small.bin?' + i); }
                      setTimeout(function () { var t = Date.now(); while (Date.now() - t < 30000) {} }, 50);
                    }, 300);
                    """)
                await idle(.seconds(4))
                let during = (AssetSchemeAttack.residentBytes() - residentBefore) >> 20
                print(
                    "ATTACK17 before close: resident +\(during) MiB, descriptors \(AssetSchemeAttack.descriptorCount(under: site.web))"
                )
                await harness.close()
            }
            let after = (await settledResident() - residentBefore) >> 20
            let fdAfter = AssetSchemeAttack.descriptorCount(under: site.web)
            print("ATTACK17 after close (trimmed): resident +\(after) MiB, descriptors \(fdAfter) (before \(fdBefore))")
            // A control view opened and closed the same way, for comparison.
            do {
                let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
                try await harness.load(assets.uri(for: "index.html"))
                await harness.close()
            }
            let control = (await settledResident() - residentBefore) >> 20
            print(
                "ATTACK17 after a further plain view: resident +\(control) MiB, descriptors \(AssetSchemeAttack.descriptorCount(under: site.web))"
            )
            #expect(fdAfter <= fdBefore, "files open after close: \(fdAfter), before \(fdBefore)")
            #expect(after < 64, "resident still +\(after) MiB after the view closed")
        }

        @Test(
            "files and downloads share one view's window: four 20 MiB downloads and a hashed 12 MiB file at once all arrive whole",
            .timeLimit(.minutes(1)))
        func filesAndDownloadsTogether() async throws {
            let site = try Site()
            let hash = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent("d.bin"), size: 12 << 20 | 3)
            let (harness, assets) = try AssetScheme.binaryHarness(site) { assets in
                .origins([OriginPattern(origin: assets.origin)])
            }
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run(
                """
                window.__made = [];
                for (let i = 0; i < 4; i++) {
                  WebBridge.call('Make', 20 * 1048576, {binary: 'stream'}).then(async function (v) {
                    const reader = v.stream.getReader(); let n = 0, bad = 0;
                    for (;;) { const {done, value} = await reader.read(); if (done) break; n += value.length; for (let j = 0; j < value.length; j += 4093) { if (value[j] !== 7) bad++; } }
                    window.__made.push(n + ':' + bad);
                  }, function (e) { window.__made.push('error:' + (e && e.code)); });
                }
                """)
            try await harness.run(AssetSchemeFlow.hashScript("d.bin"))
            try await harness.waitFor(
                "window.__made.length === 4 && window.__hashes && window.__hashes['d.bin']", timeout: .seconds(40))
            #expect(
                try await harness.value("window.__made", as: [String].self)
                    == Array(repeating: "\(20 << 20):0", count: 4))
            #expect(
                try await harness.value("window.__hashes['d.bin']", as: Hashed.self)
                    == Hashed(n: 12 << 20 | 3, hash: hash))
            await harness.close()
        }

        @Test(
            "downloads cut by a navigation and by a killed web process end natively, and the next document downloads whole",
            .timeLimit(.minutes(1)))
        func downloadsCutByNavigationAndKill() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: BinaryStream.page)
            server.routes["/other"] = .init(body: E2EPage.html(title: "other", body: "other"))
            let (harness, ends) = try BinaryStream.harness(server)
            try await harness.load(server.origin + "/")
            for i in 0..<4 { try await harness.run("e2eRead('n\(i)', {count: 400, pauseMs: 0}, null, 262144, 'hold')") }
            for i in 0..<4 { try await harness.run("e2eRead('m\(i)', {count: 400, pauseMs: 0})") }
            await idle(.milliseconds(500))
            try await harness.load(server.origin + "/other")
            let afterNavigation = await eventually(timeout: .seconds(10)) { ends.recordList.count == 8 }
            print("ATTACK17 after navigation: \(ends.recordList.map(\.outcome))")
            #expect(afterNavigation, "records after the navigation: \(ends.recordList.count) of 8")
            try await harness.load(server.origin + "/")
            for i in 0..<4 { try await harness.run("e2eRead('k\(i)', {count: 400, pauseMs: 0})") }
            await idle(.milliseconds(500))
            Self.terminateWebProcess(harness)
            let afterKill = await eventually(timeout: .seconds(10)) { ends.recordList.count == 12 }
            print("ATTACK17 after kill: \(ends.recordList.map(\.outcome))")
            #expect(afterKill, "records after the kill: \(ends.recordList.count) of 12")
            try await harness.load(server.origin + "/")
            try await harness.run("e2eRead('w', {count: 48, pauseMs: 0})")
            try await harness.waitFor("window.__streams.w.ends === 1")
            #expect(try await harness.value("window.__streams.w.bytes", as: Int.self) == 48 * 262144)
            #expect(try await harness.isTrue("window.__streams.w.sumOk"))
            await harness.close()
        }

        @Test(
            "bridge calls and a navigation stay prompt while 32 unread large files stream into the view",
            .timeLimit(.minutes(1)))
        func callsStayPromptUnderFlood() async throws {
            let site = try Site()
            try site.makeBlob("huge.bin", bytes: 1 << 30)
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([OriginPattern("app://bundle")]))
            try await harness.load(assets.uri(for: "index.html"))
            try await harness.run("for (let i = 0; i < 32; i++) { fetch('huge.bin?' + i); }")
            await idle(.seconds(1))
            let clock = ContinuousClock()
            var worst: Duration = .zero
            for i in 0..<5 {
                let started = clock.now
                try await harness.run("e2eCall('c\(i)', 'Echo', {n: \(i)})")
                try await harness.waitForSettled(["c\(i)"])
                worst = max(worst, clock.now - started)
                #expect(try await harness.outcome("c\(i)").ok)
            }
            let started = clock.now
            try await harness.load(assets.uri(for: "notes.txt"))
            let navigation = clock.now - started
            print("ATTACK17 under flood: slowest call \(worst), navigation \(navigation)")
            #expect(worst < .seconds(2))
            #expect(navigation < .seconds(3))
            await harness.close()
        }

        // MARK: 6. Correctness

        @Test("files of every edge size arrive whole, 24 at once", .timeLimit(.minutes(1)))
        func edgeSizesConcurrently() async throws {
            let site = try Site()
            var expected: [String: Hashed] = [:]
            let sizes = [0, 1, 65_535, 65_536, 65_537, 131_072, 131_073, (3 << 20) + 17, 9 << 20]
            for size in sizes {
                let name = "f\(size).bin"
                let hash = try AssetSchemeFlow.writePattern(site.web.appendingPathComponent(name), size: size)
                expected[name] = Hashed(n: size, hash: size == 0 ? 0 : hash)
            }
            let (harness, assets) = try AssetScheme.harness(site, policy: .origins([]))
            try await harness.load(assets.uri(for: "index.html"))
            var want: [String: Hashed] = [:]
            for round in 0..<3 {
                for size in sizes {
                    let path = "f\(size).bin?\(round)"
                    want[path] = expected["f\(size).bin"]
                    try await harness.run(AssetSchemeFlow.hashScript(path))
                }
            }
            try await harness.waitFor("window.__hashes && Object.keys(window.__hashes).length === \(want.count)")
            #expect(try await harness.value("window.__hashes", as: [String: Hashed].self) == want)
            await harness.close()
        }
    }
}
#endif
