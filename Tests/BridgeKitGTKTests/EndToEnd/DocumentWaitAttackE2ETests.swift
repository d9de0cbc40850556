#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack on 045a3ba (``DocumentWait``) in real WebKitGTK.
    @MainActor
    @Suite("Attacks on the wait for the document notice")
    struct DocumentWaitAttack {
        /// Counts the events native producers emitted successfully.
        final class Tally: Sendable {
            let count = Locked(0)
            let stop = Locked(false)
        }

        /// Emits events in a loop from `producers` tasks, each awaiting its previous event, and
        /// returns how many went out per second over `window`.
        static func rate(_ tally: Tally, over window: Duration) async throws -> Double {
            let before = tally.count.value
            try await Task.sleep(for: window)  // a measuring window, not a synchronization
            let after = tally.count.value
            return Double(after - before)
                / (Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18)
        }

        /// Finding 2 in the real engine: after one navigation, under steady event traffic from
        /// several tasks, the flusher never finds its queue empty, so every event keeps waiting
        /// for the engine to evaluate the one before: throughput falls to one event per round
        /// trip for as long as the traffic lasts, long after the new document named itself.
        @Test(
            "Steady events from 8 tasks: after a navigation (and its notice) they flow as fast as before it",
            .timeLimit(.minutes(1)))
        func throughputAfterNavigation() async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/a"] = .init(body: E2EPage.html(title: "a", body: "<p>a</p>"))
            a.routes["/b"] = .init(body: E2EPage.html(title: "b", body: "<p>b</p>"))
            let harness = try E2EHarness(allowing: [a.origin])
            try await harness.load(a.origin + "/a")
            let router = harness.router
            let tally = Tally()
            var producers: [Task<Void, Never>] = []
            for producer in 0..<8 {
                producers.append(
                    Task.detached {
                        var n = 0
                        while !tally.stop.value {
                            if (try? await router.emit("tick", data: [producer, n])) != nil {
                                tally.count.update { $0 += 1 }
                            }
                            n += 1
                        }
                    })
            }
            let onA = try await Self.rate(tally, over: .seconds(1))
            try await harness.load(a.origin + "/b")
            try await Task.sleep(for: .milliseconds(300))  // long after B's notice
            let onB = try await Self.rate(tally, over: .seconds(1))
            let held = router.heldScriptCount
            tally.stop.set(true)
            for producer in producers { await producer.value }
            print("DocumentWaitAttack: events/s on A \(Int(onA)), on B \(Int(onB)), \(held) still queued")
            #expect(onB > onA / 2, "events/s: \(Int(onA)) before the navigation, \(Int(onB)) after it (\(held) queued)")
            await harness.close()
        }

        /// Documents made without a navigation WebKit reports as usual: `about:blank`, a
        /// `javascript:` URL's result, `document.open()`. Were the commit reported and no notice
        /// posted, an event would wait the whole second.
        @Test(
            "An event after about:blank, a javascript: URL or document.open() does not wait for a notice that never comes",
            .timeLimit(.minutes(1)), arguments: 0..<3)
        func unusualDocuments(kind: Int) async throws {
            let a = try LoopbackServer()
            defer { a.stop() }
            a.routes["/a"] = .init(body: E2EPage.html(title: "a", body: "<p>a</p>"))
            let harness = try E2EHarness(allowing: [a.origin])
            try await harness.load(a.origin + "/a")
            try await harness.run("window.__docA = true;")
            let generation = harness.router.pageGeneration
            let scripts = [
                "location.href = 'about:blank';",
                "location.href = \"javascript:'<p>js</p>'\";",
                "document.open(); document.write('<p>opened</p>'); document.close();",
            ]
            try await harness.run(scripts[kind])
            // Until the old document is gone (or, for document.open, the write is done).
            try await harness.waitFor(
                kind == 2 ? "document.body && document.body.textContent === 'opened'" : "window.__docA === undefined")
            try await Task.sleep(for: .milliseconds(300))  // time for a notice, had there been one
            let clock = ContinuousClock()
            let start = clock.now
            try? await harness.router.emit("status", data: 1)
            let took = clock.now - start
            print(
                "DocumentWaitAttack: \(scripts[kind]) generation \(generation) -> \(harness.router.pageGeneration), event took \(took)"
            )
            #expect(took < .milliseconds(500), "\(scripts[kind]): one event took \(took)")
            await harness.close()
        }
    }
}
#endif
