#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Many calls, large payloads, and a throughput figure.
    @MainActor
    @Suite("Scale")
    struct Scale {
        static func open() async throws -> (E2EHarness, LoopbackServer) {
            let server = try LoopbackServer()
            server.routes["/scale"] = .init(body: E2EPage.html(title: "scale"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/scale")
            return (harness, server)
        }

        @Test(
            "R18 1,000 concurrent calls (Promise.all) each settle exactly once with their own result",
            .timeLimit(.minutes(1)))
        func r18ThousandConcurrentCalls() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                window.__counts = new Array(1000).fill(0); window.__values = new Array(1000).fill(null); window.__errors = [];
                window.__allDone = false;
                Promise.all(Array.from({length: 1000}, function (_, i) {
                  return new Promise(function (resolve) {
                    WebBridge.call('Echo', {i: i, s: 'v' + i}, function (reply) {
                      window.__counts[i]++;
                      if (reply.ok) { window.__values[i] = reply.data; } else { window.__errors.push(reply.error.code); }
                      resolve();
                    });
                  });
                })).then(function () { window.__allDone = true; });
                """)
            try await harness.waitFor("window.__allDone === true", timeout: .seconds(45))
            await idle(.milliseconds(300))  // a duplicate reply would arrive now
            #expect(try await harness.value("window.__errors", as: [String].self) == [])
            #expect(try await harness.isTrue("window.__counts.every(function (c) { return c === 1; })"))
            #expect(
                try await harness.isTrue(
                    "window.__values.every(function (v, i) { return v.i === i && v.s === 'v' + i; })"))
            #expect(try await harness.value("WebBridge.pendingCount()", as: Int.self) == 0)

            // In the page: one reply per id, 1,000 distinct ids.
            let received = try await harness.value("window.__rx.concat(window.__events)", as: [ReceivedMessage].self)
            let pageReplies = Dictionary(grouping: received.filter { $0.kind == "reply" }.compactMap(\.id), by: { $0 })
            #expect(pageReplies.count == 1000)
            #expect(pageReplies.values.allSatisfy { $0.count == 1 })
            // In the traffic log: 1,000 accepted calls, each answered once, ok.
            let ids = harness.traffic.acceptedCallIDs(task: "Echo")
            #expect(Set(ids).count == 1000)
            let replies = Dictionary(
                grouping: harness.traffic.matching(.outbound, "reply", task: "Echo"), by: { $0.id ?? "" })
            #expect(replies.count == 1000)
            #expect(replies.values.allSatisfy { $0.count == 1 && $0[0].outcome == "ok" && $0[0].reason == nil })
            #expect(Set(replies.keys) == Set(pageReplies.keys))
            await harness.close()
        }

        @Test("R28 a 4 MB payload round-trips byte-exact (page -> native -> page)", .timeLimit(.minutes(1)))
        func r28FourMegabytes() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            let expected = EscapingCorpus.repeated(to: 4 << 20)
            let count = expected.utf8.count / EscapingCorpus.pattern.utf8.count
            try await harness.run(
                """
                window.__big = \(E2EPage.jsLiteral(EscapingCorpus.pattern)).repeat(\(count));
                e2eCall('big', 'Record', window.__big);
                """)
            try await harness.waitForSettled(["big"])
            #expect(
                try await harness.isTrue(
                    "window.__settled.big.ok === true && window.__settled.big.data === window.__big"))
            #expect(try await harness.value("window.__big.length", as: Int.self) == expected.utf16.count)
            let received = try #require(harness.probe.runs(of: "Record").first?.options)
            #expect(EscapingCorpus.byteEqual(received, .string(expected)))
            #expect(expected.utf8.count > 4_000_000)
            await harness.close()
        }

        /// Kind of fault: the relay's one-byte form of a large body with a few wide characters
        /// (JSON `\u` escapes) changes the message, in native or back in the page.
        @Test(
            "a 1 MB mostly-ASCII payload with a few wide characters crosses narrowed and round-trips byte-exact",
            .timeLimit(.minutes(1)))
        func narrowedBody() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            let rare = "✓ 😀 é \u{2028} </script> \"q\" \\"
            let expected = String(repeating: "QUJDRA==", count: 1 << 17) + rare
            try await harness.run(
                """
                window.__big = 'QUJDRA=='.repeat(\(1 << 17)) + \(E2EPage.jsLiteral(rare));
                e2eCall('narrow', 'Record', window.__big);
                """)
            try await harness.waitForSettled(["narrow"])
            #expect(
                try await harness.isTrue(
                    "window.__settled.narrow.ok === true && window.__settled.narrow.data === window.__big"))
            let received = try #require(harness.probe.runs(of: "Record").first?.options)
            #expect(EscapingCorpus.byteEqual(received, .string(expected)))
            await harness.close()
        }

        @Test("throughput: 500 sequential calls (printed, not asserted)", .timeLimit(.minutes(1)))
        func sequentialThroughput() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                window.__bench = null;
                (async function () {
                  var t0 = performance.now();
                  for (var i = 0; i < 500; i++) { var v = await WebBridge.call('Echo', i); if (v !== i) { throw new Error('bad ' + i); } }
                  window.__bench = performance.now() - t0;
                })().catch(function (e) { window.__bench = String(e); });
                """)
            let traffic = harness.traffic
            _ = await eventually(timeout: .seconds(45)) {
                traffic.matching(.outbound, "reply", task: "Echo").count == 500
            }
            try await harness.waitFor("window.__bench !== null")
            let milliseconds = try await harness.value("window.__bench", as: Double.self)
            let perSecond = 500 / (milliseconds / 1000)
            print(
                "BridgeKit e2e (WebKitGTK, swift test, GTK mode \(GLibMainLoop.shared.mode.map { "\($0)" } ?? "none")): "
                    + "500 sequential round trips in \(Int(milliseconds)) ms = \(Int(perSecond)) calls/s")
            #expect(harness.traffic.matching(.outbound, "reply", task: "Echo").count == 500)
            await harness.close()
        }
    }
}
#endif
