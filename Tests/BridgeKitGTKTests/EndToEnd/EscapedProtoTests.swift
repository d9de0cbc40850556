#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Kind of fault: a check on JSON text that compares keys as written, not as JSON reads them.
    /// A result, progress value or event whose JSON writes `__proto__` with escapes must arrive in
    /// real WebKit as an own property, never as the delivered object's prototype (issue 20, item 4).
    @MainActor
    @Suite("Escaped __proto__ keys")
    struct EscapedProto {
        /// Every spelling: plain, one escaped letter, all escaped, an escaped underscore.
        nonisolated static let spellings = [
            #"__proto__"#, #"\u005f_proto__"#, #"__pr\u006fto__"#,
            #"\u005f\u005f\u0070\u0072\u006f\u0074\u006f\u005f\u005f"#, #"__proto\u005F_"#,
        ]

        /// The JSON text with `spelling` as the key of an object holding `{"polluted": true}`.
        nonisolated static func text(_ spelling: String) -> String {
            #"{"outer":{"\#(spelling)":{"polluted":true},"n":1}}"#
        }

        @Test(
            "Replies, progress and events whose JSON escapes __proto__ arrive with an own property and Object.prototype",
            .timeLimit(.minutes(1)))
        func escapedKeys() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/"] = .init(
                body: E2EPage.html(
                    title: "proto",
                    head: """
                        <script>
                        window.__progress = [];
                        function e2eCheck(v) {
                          var o = v && v.outer;
                          return !!o && Object.getPrototypeOf(o) === Object.prototype && o.polluted === undefined
                            && Object.prototype.hasOwnProperty.call(o, '__proto__') && o['__proto__'].polluted === true
                            && ({}).polluted === undefined;
                        }
                        window.__eventChecks = [];
                        WebBridge.on('proto', function (d) { window.__eventChecks.push(e2eCheck(d)); });
                        </script>
                        """))
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(
                    ClosureTask(name: "Proto") { (index: Int, context: CallContext) -> RawJSON in
                        let json = try RawJSON(validating: Self.text(Self.spellings[index]))
                        try await context.progress(json)
                        return json
                    })
            }
            try await harness.load(server.origin + "/")
            let keys = Self.spellings.indices.map { "p\($0)" }
            for (index, key) in keys.enumerated() {
                try await harness.run(
                    """
                    e2eCall('\(key)', 'Proto', \(index), {onProgress: function (d) { window.__progress.push(e2eCheck(d)); }});
                    """)
            }
            try await harness.waitForSettled(keys)
            for key in keys {
                #expect(
                    try await harness.isTrue(
                        "window.__settled['\(key)'].ok && e2eCheck(window.__settled['\(key)'].data)"),
                    "reply \(key)")
            }
            for spelling in Self.spellings {
                try await harness.router.emit("proto", data: try RawJSON(validating: Self.text(spelling)))
            }
            try await harness.waitFor("window.__eventChecks.length === \(Self.spellings.count)")
            #expect(
                try await harness.value("window.__eventChecks", as: [Bool].self)
                    == Array(repeating: true, count: Self.spellings.count))
            #expect(
                try await harness.value("window.__progress", as: [Bool].self)
                    == Array(repeating: true, count: Self.spellings.count))
            await harness.close()
        }
    }
}
#endif
