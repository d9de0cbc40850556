#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// The escaping corpus through real WebKit, in both directions, compared strictly.
    @MainActor
    @Suite("Escaping corpus")
    struct Escaping {
        static func open() async throws -> (E2EHarness, LoopbackServer) {
            let server = try LoopbackServer()
            server.routes["/corpus"] = .init(body: E2EPage.html(title: "corpus"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/corpus")
            try await harness.run(EscapingCorpus.pageSetupScript)
            return (harness, server)
        }

        @Test(
            "R01 R02 R04 R05 R06 R08 page -> native -> page: every value arrives byte-exact in native and back (===)",
            .timeLimit(.minutes(1)))
        func pageToNativeAndBack() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                window.__names = Object.keys(window.__expected);
                window.__names.forEach(function (name) {
                  e2eCall(name, 'Record', {name: name, value: window.__expected[name]});
                });
                """)
            let names = EscapingCorpus.allEntries.map(\.name)
            #expect(try await harness.value("window.__names", as: [String].self).sorted() == names.sorted())
            try await harness.waitForSettled(names)
            // In the page: each reply equals what was sent, strictly, and settled once.
            let pageResults = try await harness.value(
                """
                window.__names.map(function (n) {
                  var s = window.__settled[n];
                  return [n, s.ok === true && e2eEqual(s.data, {name: n, value: window.__expected[n]}) && window.__settleCount[n] === 1];
                })
                """, as: [[JSONValue]].self)
            for result in pageResults {
                #expect(result.last == true, "page round trip of \(result.first ?? "?")")
            }
            // In native: what the task received equals the Swift value, byte for byte.
            let runs = harness.probe.runs(of: "Record")
            #expect(runs.count == names.count)
            for (name, expected) in EscapingCorpus.allEntries {
                let received = runs.first { $0.options.string("name") == name }?.options["value"]
                #expect(received.map { EscapingCorpus.byteEqual($0, expected) } == true, "native received \(name)")
            }
            #expect(try await harness.value("window.__probeHits", as: Int.self) == 0, "R08 no interpolation")
            #expect(try await harness.isTrue("window.__injected === undefined"), "R06 no script injection")
            await harness.close()
        }

        @Test(
            "R02 R05 R06 R08 native -> page events: every value arrives in the page equal (===) to the page's own copy",
            .timeLimit(.minutes(1)))
        func nativeEventsToPage() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                window.__got = {};
                WebBridge.on('corpus', function (d) {
                  window.__got[d.name] = (window.__got[d.name] || []).concat([e2eEqual(d.value, window.__expected[d.name])]);
                });
                """)
            let router = harness.router
            for (name, value) in EscapingCorpus.allEntries {
                try await withDeadline("emit \(name)") {
                    try await router.emit("corpus", data: ["name": .string(name), "value": value] as JSONValue)
                }
            }
            let names = EscapingCorpus.allEntries.map(\.name)
            try await harness.waitFor("Object.keys(window.__got).length === \(names.count)")
            let got = try await harness.value("window.__got", as: [String: [Bool]].self)
            for name in names {
                #expect(got[name] == [true], "event value \(name)")
            }
            #expect(try await harness.value("window.__probeHits", as: Int.self) == 0, "R08 no interpolation")
            #expect(try await harness.isTrue("window.__injected === undefined"), "R06 no script injection")
            await harness.close()
        }

        @Test(
            "R11 integers beyond ±(2^53−1) reach the page as exact strings, in a reply (WebKit's reply path) and in an event (a script); safe ones as numbers",
            .timeLimit(.minutes(1)))
        func unsafeIntegers() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            let values: JSONValue = [
                "big": .int(9_007_199_254_740_993), "negative": .int(-9_007_199_254_740_993),
                "max": .int(Int64.max), "safe": .int(9_007_199_254_740_991), "list": [.int(1), .int(Int64.min)],
            ]
            try harness.router.register(ClosureTask(name: "Big") { (_: NoOptions, _: CallContext) in values })
            let expected = """
                {big: '9007199254740993', negative: '-9007199254740993', max: '9223372036854775807',
                 safe: 9007199254740991, list: [1, '-9223372036854775808']}
                """
            try await harness.run(
                """
                window.__bigEvents = [];
                WebBridge.on('big', function (d) { window.__bigEvents.push(d); });
                e2eCall('big', 'Big', {});
                """)
            try await harness.waitForSettled(["big"])
            let reply = try await harness.json("window.__settled.big")
            #expect(
                try await harness.isTrue("window.__settled.big.ok && e2eEqual(window.__settled.big.data, \(expected))"),
                "the reply: \(reply)")
            try await withDeadline("emit big") { try await harness.router.emit("big", data: values) }
            try await harness.waitFor("window.__bigEvents.length === 1")
            let event = try await harness.json("window.__bigEvents[0]")
            #expect(try await harness.isTrue("e2eEqual(window.__bigEvents[0], \(expected))"), "the event: \(event)")
            await harness.close()
        }

        @Test(
            "R01 R04 R05 native -> page call -> native: the page handler sees equal values, native gets them back byte-exact",
            .timeLimit(.minutes(1)))
        func nativeCallsPage() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                window.__checked = {};
                WebBridge.handle('echo', function (o) {
                  window.__checked[o.name] = e2eEqual(o.value, window.__expected[o.name]);
                  return window.__expected[o.name];
                });
                """)
            let router = harness.router
            for (name, value) in EscapingCorpus.allEntries {
                let answer = try await withDeadline("callPage \(name)") {
                    try await router.callPage("echo", options: ["name": .string(name), "value": value] as JSONValue)
                }
                #expect(EscapingCorpus.byteEqual(answer, value), "native got back \(name)")
            }
            let checked = try await harness.value("window.__checked", as: [String: Bool].self)
            #expect(checked.count == EscapingCorpus.allEntries.count)
            #expect(checked.filter { !$0.value }.keys.sorted() == [])
            await harness.close()
        }
    }
}
#endif
