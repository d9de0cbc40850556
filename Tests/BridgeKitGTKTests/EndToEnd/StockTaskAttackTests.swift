#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attacks on the stock tasks (`BridgeTasks`) from a hostile page in real WebKitGTK: names that
    /// pass the `File` tasks' one-component rule but are not one component, stock tasks that keep
    /// what a page sends past the router's byte budget, and a label limit counted in graphemes.
    @MainActor
    @Suite("Stock tasks from a hostile page")
    struct StockTaskAttack {
        /// A harness with the byte transport and `File.save` / `File.open` on a fresh directory.
        static func fileHarness(_ server: LoopbackServer) throws -> (E2EHarness, URL) {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bridgekit-attack-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let harness = try E2EHarness(
                policy: .origins([OriginPattern(server.origin)]),
                binaryLimits: BinaryLimits(requestWait: 2, claimWait: 5))
            let transfers = try #require(harness.transfers)
            try harness.router.register(FileSaveTask(transfers: transfers, directory: directory))
            try harness.router.register(FileOpenTask(transfers: transfers, directory: directory))
            return (harness, directory)
        }

        @Test(
            "File.save / File.open: a '/' hidden in a grapheme (followed by a combining mark) is still a path separator; a '.' with a combining mark is still a hidden file",
            .timeLimit(.minutes(1)))
        func fileNameGraphemes() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "files"))
            let (harness, directory) = try Self.fileHarness(server)
            defer { try? FileManager.default.removeItem(at: directory) }
            // The app's directory holds a folder of its own, with a file of its own in it.
            let sub = directory.appendingPathComponent("private")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            try Data("app secret".utf8).write(to: sub.appendingPathComponent("\u{301}keys"))
            try await harness.load(server.origin + "/")

            try await harness.run(
                """
                e2eCall('intoSub', 'File.save', {name: 'private/\\u0301planted', file: new Blob(['evil'])});
                e2eCall('hidden', 'File.save', {name: '.\\u0301hidden', file: new Blob(['evil'])});
                e2eCall('readSub', 'File.open', {name: 'private/\\u0301keys'});
                """)
            try await harness.waitForSettled(["intoSub", "hidden", "readSub"])
            let intoSub = try await harness.outcome("intoSub")
            let hidden = try await harness.outcome("hidden")
            let readSub = try await harness.outcome("readSub")
            #expect(intoSub.code == "invalid_options", "a name with a '/' is not one path component: \(intoSub)")
            #expect(hidden.code == "invalid_options", "a name starting with '.' is a hidden file: \(hidden)")
            #expect(readSub.code == "invalid_options", "File.open reads only the directory's own files: \(readSub)")
            let planted = try FileManager.default.contentsOfDirectory(atPath: sub.path)
            #expect(planted == ["\u{301}keys"], "the page wrote into the app's sub-folder: \(planted)")
            let top = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(!top.contains { $0.hasPrefix(".") || $0.utf8.first == UInt8(ascii: ".") }, "hidden files: \(top)")
            await harness.close()
        }

        @Test(
            "File.save writes only into the app's directory: not through a link to a folder elsewhere that the directory holds",
            .timeLimit(.minutes(1)))
        func fileNameThroughLink() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "files"))
            let (harness, directory) = try Self.fileHarness(server)
            defer { try? FileManager.default.removeItem(at: directory) }
            // Outside the directory the app gave the task, reached by a link the directory holds
            // (a "Shared" shortcut in a documents folder, say).
            let outside = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bridgekit-outside-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: outside) }
            try FileManager.default.createSymbolicLink(
                at: directory.appendingPathComponent("Shared"), withDestinationURL: outside)
            try await harness.load(server.origin + "/")
            try await harness.run(
                "e2eCall('out', 'File.save', {name: 'Shared/\\u0301autostart.desktop', file: new Blob(['[Desktop Entry]'])});"
            )
            try await harness.waitForSettled(["out"])
            let out = try await harness.outcome("out")
            #expect(out.code == "invalid_options", "saved through the link: \(out)")
            let written = try FileManager.default.contentsOfDirectory(atPath: outside.path)
            #expect(written.isEmpty, "the page wrote outside the app's directory: \(outside.path): \(written)")
            await harness.close()
        }

        @Test(
            "File.save: closing the web view in the middle of an upload leaves no partial file", .timeLimit(.minutes(1))
        )
        func fileSaveTeardown() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "files"))
            let (harness, directory) = try Self.fileHarness(server)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await harness.load(server.origin + "/")
            try await harness.run(
                "e2eCall('big', 'File.save', {name: 'big.bin', file: new Blob([new Uint8Array(300 * 1024 * 1024)])});")
            // Wait for the temporary file to grow, then tear the view down.
            let started = await eventually {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                return names.contains { name in
                    let size =
                        (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[
                            .size] as? NSNumber)?.intValue ?? 0
                    return name.hasSuffix(".part") && size > 0
                }
            }
            #expect(started, "the upload was under way")
            await harness.close()
            let clear = await eventually(timeout: .seconds(5)) {
                ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty
            }
            #expect(
                clear, "left behind: \((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])")
        }

        @Test(
            "File.save never replaces a link of the app's, also when the name hides a NUL behind a combining mark",
            .timeLimit(.minutes(1)))
        func fileNameHiddenNul() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "files"))
            let (harness, directory) = try Self.fileHarness(server)
            defer { try? FileManager.default.removeItem(at: directory) }
            let target = directory.appendingPathComponent("settings.link")
            try FileManager.default.createSymbolicLink(atPath: target.path, withDestinationPath: "/etc/hostname")
            try await harness.load(server.origin + "/")
            try await harness.run(
                """
                e2eCall('plain', 'File.save', {name: 'settings.link', file: new Blob(['evil'])});
                e2eCall('nul', 'File.save', {name: 'settings.link\\u0000\\u0301', file: new Blob(['evil'])});
                """)
            try await harness.waitForSettled(["plain", "nul"])
            #expect(try await harness.outcome("plain").code == "invalid_options", "the rule as documented")
            let nul = try await harness.outcome("nul")
            #expect(nul.code == "invalid_options", "\(nul)")
            let kind = try FileManager.default.attributesOfItem(atPath: target.path)[.type] as? FileAttributeType
            #expect(kind == .typeSymbolicLink, "the app's link is now \(String(describing: kind))")
            await harness.close()
        }

        /// Open file descriptors of this process.
        static var openDescriptors: Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
        }

        @Test(
            "File.open: streams a page opens and never reads give their files back when the document goes away",
            .timeLimit(.minutes(1)))
        func fileOpenStreamsReleased() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "files"))
            server.routes["/next"] = .init(body: E2EPage.html(title: "next"))
            let (harness, directory) = try Self.fileHarness(server)
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data(repeating: 7, count: 3 << 20).write(to: directory.appendingPathComponent("film.bin"))
            try await harness.load(server.origin + "/")
            let baseline = Self.openDescriptors
            try await harness.run(
                """
                window.__opened = 0;
                for (var i = 0; i < 150; i++) {
                  WebBridge.call('File.open', {name: 'film.bin'}, {binary: 'stream'}).then(function () { window.__opened++; },
                    function (e) { window.__opened++; });
                }
                """)
            try await harness.waitFor("window.__opened === 150")
            let during = Self.openDescriptors
            try await harness.load(server.origin + "/next")
            let released = await eventually(timeout: .seconds(5)) { Self.openDescriptors < baseline + 20 }
            print(
                "file open attack: descriptors \(baseline) before, \(during) with 150 unread streams, \(Self.openDescriptors) after the page left"
            )
            #expect(released, "descriptors after the document went away: \(Self.openDescriptors), before: \(baseline)")
            await harness.close()
        }

        @Test(
            "History: a notice whose URL carries credentials the document does not have is refused (pushState cannot change them)",
            .timeLimit(.minutes(1)))
        func historyCredentials() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "history"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let forged = "http://admin:hunter2@127.0.0.1:\(server.port)/login"
            try await harness.run(
                "WebBridge.notify('History', {type: 'pushState', url: \(E2EPage.jsLiteral(forged))});")
            #expect(
                await eventually(timeout: .seconds(3)) {
                    harness.traffic.all.contains { $0.task == "History" && $0.direction == .inbound }
                })
            await idle(.milliseconds(300))
            let got = harness.notices.value.map(\.url.absoluteString)
            #expect(got.isEmpty, "the host was told the page is at \(got)")
            await harness.close()
        }

        @Test(
            "Alert: calls the page has settled keep nothing in the app (the stock AutomaticAlertPresenter keeps every request, message unbounded)",
            .timeLimit(.minutes(2)))
        func alertRequestsRetained() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "alerts"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let budget = harness.router.configuration.limits.maxHeldBytes
            // One after the other: each call is within every limit, and settles before the next.
            try await harness.run(
                """
                window.__alerts = 0; window.__alertCodes = [];
                (async function () {
                  var message = 'm'.repeat(8 * 1024 * 1024);
                  for (var i = 0; i < 12; i++) {
                    try {
                      await WebBridge.call('Alert', {title: 't' + i, message: message, buttons: ['OK']});
                      window.__alertCodes.push('ok');
                    } catch (e) { window.__alertCodes.push(e.code); }
                    window.__alerts++;
                  }
                })();
                """)
            try await harness.waitFor("window.__alerts === 12", timeout: .seconds(90))
            let codes = try await harness.value("window.__alertCodes", as: [String].self)
            #expect(Set(codes) == ["invalid_options"], "a message over AlertTask.maxMessageLength: \(codes)")
            #expect(harness.router.heldBytes == 0, "the router holds nothing once the calls settled")
            let kept = harness.alerts.presented.reduce(0) { $0 + ($1.message?.utf8.count ?? 0) }
            print("alert attack: 12 settled alerts of 8 MiB keep \(kept / 1_048_576) MiB in the presenter")
            #expect(kept <= budget, "settled alerts keep \(kept) bytes in the app, over the page budget \(budget)")
            await harness.close()
        }

        @Test(
            "Echo: a reply whose integers beyond 2^53 are quoted for the page settles once and grows by at most an eighth over maxPayloadBytes (BridgeLimits.maxPayloadBytes)",
            .timeLimit(.minutes(1)))
        func echoReplyGrows() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "echo"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            let limit = harness.router.configuration.limits.maxPayloadBytes
            // A body just under the limit whose echo is over it: 17 bytes per number, 19 as a string.
            try await harness.run(
                """
                var n = Math.floor((\(limit) - 4096) / 17);
                var text = '{"n":[' + new Array(n).fill('9007199254740993').join(',') + ']}';
                window.__bodyBytes = text.length;
                window.__big = null; window.__bigCount = 0;
                WebBridge.call('Echo', JSON.parse(text)).then(function (v) {
                  window.__bigCount++;
                  // The page's JSON.parse made 9007199254740992 of it; native quotes it, exact.
                  window.__big = {ok: true, replyBytes: JSON.stringify(v).length, exact: v.n[0] === '9007199254740992'};
                }, function (e) { window.__bigCount++; window.__big = {ok: false, code: e.code}; });
                """)
            try await harness.waitFor("window.__big !== null", timeout: .seconds(40))
            struct Big: Decodable {
                var ok: Bool
                var code: String?
                var replyBytes: Int?
                var exact: Bool?
            }
            let big = try await harness.value("window.__big", as: Big.self)
            #expect(big.ok && big.exact == true, "the echo arrives, its integers exact: \(big)")
            let bound = limit + limit / 8
            #expect(
                (big.replyBytes ?? .max) <= bound,
                "the page got a reply of \(big.replyBytes ?? 0) bytes, limit \(limit), documented bound \(bound)")
            await idle(.milliseconds(300))
            #expect(try await harness.value("window.__bigCount", as: Int.self) == 1)
            await harness.close()
        }

        @Test(
            "History: a real pushState reaches the host with the URL the page has (location.href)",
            .timeLimit(.minutes(1)))
        func historyURLFidelity() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "history"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            // Paths a router of a single-page app may well push: WHATWG URL leaves |, ^, [, ] and a
            // stray % as they are.
            let paths = ["/a|b", "/q?x=^1", "/list[2]", "/50%off", "/ok"]
            try await harness.run(
                """
                window.__hrefs = [];
                \(E2EPage.jsExpression(.array(paths.map { .string($0) }))).forEach(function (p) {
                  history.pushState(null, '', p); window.__hrefs.push(location.href);
                });
                """)
            let hrefs = try await harness.value("window.__hrefs", as: [String].self)
            #expect(await eventually(timeout: .seconds(5)) { harness.notices.value.count == paths.count })
            await idle(.milliseconds(200))
            let got = harness.notices.value.map(\.href)
            #expect(got == hrefs, "the host got \(got) for \(hrefs)")
            let refused = harness.traffic.all.filter { $0.task == "History" && $0.outcome == "invalid_options" }
            #expect(refused.isEmpty, "real notices refused: \(refused.count)")
            await harness.close()
        }

        @Test(
            "Alert: a button label is at most 200 characters, also when its characters are one grapheme",
            .timeLimit(.minutes(1)))
        func alertLabelGrapheme() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "alerts"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/")
            try await harness.run(
                """
                e2eCall('plain', 'Alert', {buttons: ['x'.repeat(201)]});
                e2eCall('zalgo', 'Alert', {buttons: ['e' + '\\u0301'.repeat(100000)]});
                """)
            try await harness.waitForSettled(["plain", "zalgo"])
            #expect(try await harness.outcome("plain").code == "invalid_options")
            let zalgo = try await harness.outcome("zalgo")
            #expect(zalgo.code == "invalid_options", "a 100,001-scalar label was shown: \(zalgo.ok)")
            let shown = harness.alerts.presented.map { $0.buttons.map { $0.unicodeScalars.count }.max() ?? 0 }
            #expect(shown.allSatisfy { $0 <= 200 }, "labels the presenter was given, in scalars: \(shown)")
            await harness.close()
        }

        @Test(
            "History: notices the host has not read yet stay within the page budget (HistoryTask buffers 256 notices of any size)",
            .timeLimit(.minutes(2)))
        func historyBufferBeyondBudget() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(body: E2EPage.html(title: "history"))
            let unread = HistoryTask(name: "History.unread")
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in try router.register(unread) }
            try await harness.load(server.origin + "/")
            let budget = harness.router.configuration.limits.maxHeldBytes
            // Same-origin URLs, each under maxPayloadBytes: every notice is one the task accepts.
            try await harness.run(
                """
                window.__notices = 0; window.__noticeReasons = [];
                (async function () {
                  var tail = '#' + 'h'.repeat(15 * 1024 * 1024);
                  for (var i = 0; i < 12; i++) {
                    try {
                      await WebBridge.call('History.unread', {type: 'pushState', url: location.origin + '/p' + i + tail});
                      window.__noticeReasons.push('ok');
                    } catch (e) { window.__noticeReasons.push(e.details && e.details.reason); }
                    window.__notices++;
                  }
                })();
                """)
            try await harness.waitFor("window.__notices === 12", timeout: .seconds(90))
            let reasons = try await harness.value("window.__noticeReasons", as: [String].self)
            #expect(Set(reasons) == ["url_too_long"], "a URL over HistoryTask.maxURLLength: \(reasons)")
            #expect(harness.router.heldBytes == 0)
            // What the stream holds for the host, read without waiting for more.
            let kept = Locked(0)
            let reader = Task {
                for await notice in unread.notices { kept.update { $0 += notice.url.absoluteString.utf8.count } }
            }
            await idle(.milliseconds(300))
            unread.finish()
            await reader.value
            print("history attack: 12 notices keep \(kept.value / 1_048_576) MiB in the stream")
            #expect(kept.value <= budget, "unread notices keep \(kept.value) bytes, over the page budget \(budget)")
            await harness.close()
        }
    }
}
#endif
