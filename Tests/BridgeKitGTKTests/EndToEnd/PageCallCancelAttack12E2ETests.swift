#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Attack 12 on the cancels of native-to-page calls (d31ccb6, 73a5b24) in real WebKitGTK.
    @MainActor
    @Suite("Attacks on the cancels of native-to-page calls (attack 12)")
    struct PageCallCancelAttack12 {
        /// A page handler with a side effect (`window.__ran`), slow to settle (300 ms), that
        /// records whether the cancel reached it (`window.__aborted`).
        static let page = E2EPage.html(
            title: "side effects",
            body: """
                <script>
                window.__ran = []; window.__aborted = {};
                WebBridge.handle('SideEffect', function (o, ctx) {
                  window.__ran.push(o.k);
                  window.__aborted[o.k] = ctx.signal.aborted;
                  ctx.signal.addEventListener('abort', function () { window.__aborted[o.k] = true; });
                  return new Promise(function (resolve) { setTimeout(function () { resolve(o.k); }, 300); });
                });
                </script>
                """)

        /// Native calls a handler with side effects with tiny timeouts, one after another. Every
        /// call throws `timeout`. Guarded (passes if the design holds): a call whose script never
        /// left the router (its outbound record `notDelivered`) never ran on the page; a call that
        /// ran got its cancel (its signal aborted); a cancel that overtook its call kept the handler
        /// from running; and the shim keeps no early cancel at the end (each matched its call).
        @Test(
            "Calls with tiny timeouts: the page runs none that never left, and every one that ran is aborted",
            .timeLimit(.minutes(2)))
        func tinyTimeouts() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/p"] = .init(body: Self.page)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/p")
            let router = harness.router
            let timeouts: [Duration] = [.microseconds(50), .microseconds(300), .milliseconds(1), .milliseconds(3)]
            let count = 80
            var ids: [String] = []
            for k in 0..<count {
                let before = Set(harness.traffic.matching(.outbound, "call").compactMap(\.id))
                let error = await #expect(throws: BridgeError.self) {
                    _ = try await router.callPage(
                        "SideEffect", options: ["k": k], timeout: timeouts[k % timeouts.count])
                }
                #expect(error?.code == "timeout", "call \(k): \(String(describing: error))")
                // The call's id: the one outbound call record that is new (delivered or dropped);
                // wait for its record (the send task may still run).
                var id: String?
                for _ in 0..<2000 where id == nil {
                    id = Set(harness.traffic.matching(.outbound, "call").compactMap(\.id)).subtracting(before).first
                    if id == nil { try await Task.sleep(for: .milliseconds(1)) }
                }
                ids.append(id ?? "?")
            }
            try await Self.check(harness, ids: ids, count: count)
            await harness.close()
        }

        /// ``tinyTimeouts()`` with the calls made all at once (their scripts and cancels race to
        /// the main thread and the engine): the same guarantees.
        @Test(
            "Concurrent calls with tiny timeouts: the page runs none that never left, and every one that ran is aborted",
            .timeLimit(.minutes(2)))
        func tinyTimeoutsConcurrent() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/p"] = .init(body: Self.page)
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/p")
            let router = harness.router
            let timeouts: [Duration] = [.microseconds(50), .microseconds(300), .milliseconds(1), .milliseconds(3)]
            let count = 60
            // Made in order from one task (ids n-1...n-60 in that order), awaited together.
            var calls: [Task<String, Never>] = []
            for k in 0..<count {
                let timeout = timeouts[k % timeouts.count]
                calls.append(
                    Task {
                        do {
                            _ = try await router.callPage("SideEffect", options: ["k": k], timeout: timeout)
                            return "ok"
                        } catch {
                            return (error as? BridgeError)?.code ?? "?"
                        }
                    })
                await Task.yield()
            }
            var outcomes: [String] = []
            for call in calls { outcomes.append(await call.value) }
            #expect(outcomes.allSatisfy { $0 == "timeout" }, "\(outcomes)")
            // A call that timed out before its send task ran is recorded (dropped) when it runs.
            var numbered = 0
            for _ in 0..<5000 {
                numbered = Set(harness.traffic.matching(.outbound, "call").compactMap(\.id)).count
                if numbered == count { break }
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(numbered == count, "one outbound record per call (delivered or dropped)")
            print(
                "PageCallCancelAttack12: concurrent outcomes \(Dictionary(grouping: outcomes, by: { $0 }).mapValues(\.count))"
            )
            let early = try await harness.value("WebBridge._sizes().earlyCancels", as: Int.self)
            try? await harness.waitFor(
                "window.__ran.every(function (k) { return window.__aborted[k] === true; })", timeout: .seconds(5))
            let ran = try await harness.value("window.__ran", as: [Int].self)
            let aborted = try await harness.value("window.__aborted", as: [String: Bool].self)
            let left = harness.traffic.matching(.outbound, "call").filter { $0.reason == nil }.count
            let cancels = harness.traffic.matching(.outbound, "cancel").count
            print(
                "PageCallCancelAttack12: concurrent: \(left) left, \(cancels) cancels, \(ran.count) ran, \(early) early cancels"
            )
            #expect(ran.count <= left, "more handlers ran than calls left the router")
            #expect(cancels == left, "every call that left got its cancel")
            for k in ran { #expect(aborted["\(k)"] == true, "call \(k) ran and its cancel never aborted it") }
            let lateEarly = try await harness.value("WebBridge._sizes().earlyCancels", as: Int.self)
            #expect(lateEarly == 0, "\(lateEarly) early cancels never met their call")
            await harness.close()
        }

        /// Finding 4 of attack 12 (PageCallCancelAttack12Tests.timeoutReplyOvertakesCancel) in
        /// the real engine. The page calls `Parent` (time limit 150 ms), whose work calls the page's
        /// `Child` handler, which never settles. `Parent` times out: `settle(.timedOut)` cancels
        /// the work, whose `callPage` throws and numbers `Child`'s cancel, and then answers the
        /// relay's reply handler at once (`replyHandlerBarrier` only for `.workFinished`). The page
        /// gets `Parent`'s `timeout` while `Child` still runs unaborted: its cancel comes after.
        @Test(
            "A task that times out while awaiting callPage: the page sees the call's cancel before the task's timeout",
            .timeLimit(.minutes(2)))
        func timeoutReplyBeforeChildCancel() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/p"] = .init(
                body: E2EPage.html(
                    title: "parent",
                    body: """
                        <script>
                        window.__child = {}; window.__rounds = [];
                        WebBridge.handle('Child', function (o, ctx) {
                          window.__child[o.round] = false;
                          ctx.signal.addEventListener('abort', function () { window.__child[o.round] = true; });
                          return new Promise(function () {});
                        });
                        function go(round, task) {
                          WebBridge.call(task || 'Parent', { round: round }).then(
                            function () { window.__rounds.push({ round: round, outcome: 'resolved', started: round in window.__child, childAborted: window.__child[round] === true }); },
                            function (e) { window.__rounds.push({ round: round, outcome: String(e && e.code), started: round in window.__child, childAborted: window.__child[round] === true }); });
                        }
                        </script>
                        """))
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(
                    ClosureTask(name: "Parent", timeout: .milliseconds(150)) {
                        [weak router] (options: JSONValue, _: CallContext) -> String in
                        _ = try await router?.callPage("Child", options: options, timeout: nil)
                        return "done"
                    })
                // Gives up on `Child` itself (its own timeout) and returns: the deferred reply of 73a5b24.
                try router.register(
                    ClosureTask(name: "Quitter") { [weak router] (options: JSONValue, _: CallContext) -> String in
                        _ = try? await router?.callPage("Child", options: options, timeout: .milliseconds(100))
                        return "done"
                    })
            }
            try await harness.load(server.origin + "/p")
            struct Round: Decodable {
                let round: Int
                let outcome: String
                let started: Bool
                let childAborted: Bool
            }
            // Parent's reply overtakes in 10-45% of the rounds here: 40 make a miss unlikely.
            let rounds = 40
            for round in 0..<rounds + 16 {
                try await harness.run("go(\(round), \(round < rounds ? "'Parent'" : "'Quitter'"));")
                try await harness.waitFor("window.__rounds.length === \(round + 1)")
            }
            let all = try await harness.value("window.__rounds", as: [Round].self)
            // Guard (passes): the task that gave up on Child and returned (its reply deferred, 73a5b24).
            let quitter = all.filter { $0.round >= rounds }
            print(
                "PageCallCancelAttack12: quitter reply vs child cancel: \(quitter.map { "\($0.round):\($0.outcome):\($0.childAborted)" })"
            )
            #expect(
                quitter.allSatisfy { $0.outcome == "resolved" && $0.started && $0.childAborted },
                "the deferred reply waits for the cancel")
            let seen = all.filter { $0.round < rounds }
            print(
                "PageCallCancelAttack12: parent timeout vs child cancel: \(seen.map { "\($0.round):\($0.outcome):\($0.childAborted)" })"
            )
            #expect(seen.allSatisfy { $0.outcome == "timeout" && $0.started }, "Child ran in every round")
            let overtaken = seen.filter { $0.started && !$0.childAborted }.map(\.round)
            #expect(overtaken.isEmpty, "rounds \(overtaken): Parent's timeout reached the page before Child's cancel")
            await harness.close()
        }

        /// The checks of ``tinyTimeouts()`` and ``tinyTimeoutsConcurrent()``: `ids[k]` is the
        /// native id of the call with option `k`.
        static func check(_ harness: E2EHarness, ids: [String], count: Int) async throws {
            // Bounded polling: every handler that ran is aborted once its cancel arrives.
            try? await harness.waitFor(
                "window.__ran.every(function (k) { return window.__aborted[k] === true; })", timeout: .seconds(5))
            let ran = Set(try await harness.value("window.__ran", as: [Int].self))
            let aborted = try await harness.value("window.__aborted", as: [String: Bool].self)
            let early = try await harness.value("WebBridge._sizes().earlyCancels", as: Int.self)
            var dropped = 0
            var skipped = 0
            for (k, id) in ids.enumerated() {
                let records = harness.traffic.matching(.outbound, "call", id: id)
                let left = records.contains { $0.reason == nil }
                let hasCancel = !harness.traffic.matching(.outbound, "cancel", id: id).isEmpty
                if !left {
                    dropped += 1
                    #expect(!ran.contains(k), "call \(k) (\(id)) never left the router, yet the page ran it")
                    #expect(!hasCancel, "call \(k) (\(id)) never left, yet it got a cancel")
                } else if !ran.contains(k) {
                    skipped += 1
                    #expect(hasCancel)
                } else {
                    #expect(hasCancel, "call \(k) (\(id)) ran and timed out but got no cancel")
                    #expect(
                        aborted["\(k)"] == true, "call \(k) (\(id)) ran on the page and its cancel never aborted it")
                }
            }
            print(
                "PageCallCancelAttack12: \(count) calls: \(dropped) never left, \(skipped) cancelled before they ran, \(ran.count) ran; \(early) early cancels left"
            )
            #expect(early == 0, "\(early) early cancels never met their call")
        }
    }
}
#endif
