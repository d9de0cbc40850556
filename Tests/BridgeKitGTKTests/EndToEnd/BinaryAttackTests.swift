#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attacks on the byte transport (`webbridge-binary:`) in real WebKitGTK: what frames that
    /// may not move bytes can still do to the page that may.
    @MainActor
    @Suite("Binary values under attack")
    struct BinaryAttack {
        /// A frame page that sends `count` bodies to random tokens as soon as it loads, and tells
        /// its parent when every request has been sent (not answered: they wait for a claim).
        static func floodPage(count: Int) -> String {
            E2EPage.html(
                title: "flood",
                head: """
                    <script>
                    (function () {
                      var answered = 0;
                      for (var i = 0; i < \(count); i++) {
                        var b = new Uint8Array(16); crypto.getRandomValues(b);
                        var token = Array.prototype.map.call(b, function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join('');
                        fetch('webbridge-binary://transfer/' + token, {method: 'POST', body: new Uint8Array([1])})
                          .then(function () { answered++; }, function () { answered++; });
                      }
                      setTimeout(function () { parent.postMessage({flood: self.origin}, '*'); }, 300);
                    })();
                    </script>
                    """)
        }

        /// Kind of fault: a shared budget that requests nobody can authenticate may use up. A page
        /// request waits for its call's task to claim the token (the shim posts the body right
        /// after the call), and those waits were one budget for the whole web view, taken before
        /// the request's origin was looked at: another origin's frame (an ad, a widget) or an
        /// opaque-origin frame could keep it full with bodies for made-up tokens, and every
        /// binary value of the main frame was then refused before its task claimed it, so the
        /// main frame's calls timed out.
        @Test(
            "another origin's frame and a sandboxed frame flooding the transport with bodies for made-up tokens do not stop the main frame's uploads",
            .timeLimit(.minutes(1)))
        func waitingFloodFromOtherFrames() async throws {
            let a = try LoopbackServer()
            let b = try LoopbackServer()
            defer {
                a.stop()
                b.stop()
            }
            let flood = Self.floodPage(count: 40)
            b.routes["/flood"] = .init(body: flood)
            a.routes["/"] = .init(
                body: E2EPage.html(
                    title: "main",
                    head: """
                        <script>
                        \(Binary.pageScript)
                        window.__floods = [];
                        window.addEventListener('message', function (e) { if (e.data && e.data.flood) { window.__floods.push(e.data.flood); } });
                        </script>
                        """,
                    body: """
                        <iframe src="\(b.origin)/flood"></iframe>
                        <iframe sandbox="allow-scripts" src="/flood"></iframe>
                        """))
            a.routes["/flood"] = .init(body: flood)
            let (harness, records) = try Binary.harness(
                a, limits: BinaryLimits(requestWait: 20, claimWait: 5))
            // A task that asks something first (where to save, say) and claims the bytes later.
            let transfers = try #require(harness.transfers)
            try harness.router.register(
                ClosureTask(name: "SaveLater") { (options: Binary.SaveOptions, context: CallContext) -> Int in
                    try await Task.sleep(for: .milliseconds(500))
                    return try await transfers.data(of: options.file, context: context).count
                })
            try await harness.load(a.origin + "/")
            try await harness.waitFor("window.__floods.length === 2")
            #expect(
                try await harness.value("window.__floods", as: [String].self).sorted() == [b.origin, "null"].sorted())
            try await harness.run(
                "e2eCall('save', 'Save', {file: pattern(1000)}); window.__expect = sum(pattern(1000)); e2eCall('later', 'SaveLater', {file: pattern(2000)});"
            )
            try await harness.waitForSettled(["save", "later"])
            let later = try await harness.outcome("later")
            #expect(later.ok, "the main frame's upload to a task that claims later went through: \(later.code ?? "")")
            #expect(later.data == 2000)
            let save = try await harness.outcome("save")
            #expect(save.ok, "the main frame's upload went through: \(save.code ?? "")")
            #expect(save.data?["bytes"] == 1000)
            #expect(try await harness.isTrue("window.__settled.save.data.sum === window.__expect"))
            #expect(records.list.map(\.outcome) == [.finished, .finished])
            await harness.close()
        }
    }
}
#endif
