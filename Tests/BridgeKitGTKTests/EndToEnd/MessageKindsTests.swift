#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Every stock task and every message kind of protocol v1 through a real page.
    @MainActor
    @Suite("Message kinds")
    struct MessageKinds {
        /// A harness with one served page at `/app` that allows the server's origin.
        static func open() async throws -> (E2EHarness, LoopbackServer) {
            let server = try LoopbackServer()
            server.routes["/app"] = .init(body: E2EPage.html(title: "app"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/app")
            return (harness, server)
        }

        @Test("Alert (AutomaticAlertPresenter) replies {index, button}", .timeLimit(.minutes(1)))
        func alert() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run("e2eCall('alert', 'Alert', {title: 'T', message: 'M', buttons: ['Cancel', 'OK']})")
            try await harness.waitForSettled(["alert"])
            let outcome = try await harness.outcome("alert")
            #expect(outcome.ok)
            #expect(outcome.data == ["index": 1, "button": "OK"])
            #expect(harness.alerts.presented == [AlertRequest(title: "T", message: "M", buttons: ["Cancel", "OK"])])
            #expect(try await harness.value("window.__settleCount.alert", as: Int.self) == 1)
            await harness.close()
        }

        /// New-user finding: a call the page's time limit ended was logged `cancelled`, like an
        /// abort, and the cancel record named no task.
        @Test(
            "the page's time limit (timeout setting, AbortSignal.timeout) ends the task and is logged timeout; an abort cancelled",
            .timeLimit(.minutes(1)))
        func pageTimeLimit() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                e2eCall('setting', 'Slow', {}, {timeout: 100});
                e2eCall('signal', 'Slow', {}, {signal: AbortSignal.timeout(100)});
                var ac = new AbortController();
                e2eCall('abort', 'Slow', {}, {signal: ac.signal});
                setTimeout(function () { ac.abort(); }, 100);
                """)
            try await harness.waitForSettled(["setting", "signal", "abort"])
            #expect(try await harness.outcome("setting").code == "timeout")
            #expect(try await harness.outcome("signal").code == "timeout")
            #expect(try await harness.outcome("abort").code == "cancelled")
            #expect(await eventually { harness.probe.cancelledCallIDs.count == 3 })
            #expect(await eventually { harness.traffic.matching(.outbound, "reply", task: "Slow").count == 3 })
            let ids = harness.traffic.acceptedCallIDs(task: "Slow")
            try #require(ids.count == 3)
            let cancels = harness.traffic.matching(.inbound, "cancel")
            #expect(cancels.map(\.id).sorted { ($0 ?? "") < ($1 ?? "") } == ids.sorted())
            #expect(cancels.allSatisfy { $0.task == "Slow" && $0.outcome == nil }, "\(cancels)")
            let outcomes = ids.map { id in harness.traffic.matching(.outbound, "reply", id: id).first?.outcome }
            #expect(outcomes == ["timeout", "timeout", "cancelled"], "\(harness.traffic.all)")
            #expect(harness.probe.uncancelledCallIDs.isEmpty)
            await harness.close()
        }

        @Test(
            "R48 history notices from pushState, replaceState and popstate reach HistoryTask in order, absolute",
            .timeLimit(.minutes(1)))
        func r48History() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            let generation = harness.router.pageGeneration
            let finishedLoads = harness.loadEvents.count
            try await harness.run(
                """
                window.addEventListener('popstate', function () { window.__popped = location.href; });
                history.pushState({p: 1}, '', '/orders/7');
                history.replaceState(null, '', '?tab=2');
                history.back();
                """)
            try await harness.waitFor("window.__popped !== undefined")
            #expect(await eventually { harness.notices.value.count >= 3 })
            await idle(.milliseconds(200))  // nothing more may come
            let origin = server.origin
            let expected = [
                HistoryNotice(type: .pushState, url: try #require(URL(string: origin + "/orders/7"))),
                HistoryNotice(type: .replaceState, url: try #require(URL(string: origin + "/orders/7?tab=2"))),
                HistoryNotice(type: .popstate, url: try #require(URL(string: origin + "/app"))),
            ]
            #expect(harness.notices.value == expected)
            // Same-document navigations are not page changes: no load events, the generation stays.
            #expect(harness.router.pageGeneration == generation)
            #expect(harness.loadEvents.count == finishedLoads)
            // History notices are fire-and-forget: accepted, no reply.
            #expect(harness.traffic.matching(.inbound, "call", task: "History").map(\.id) == [nil, nil, nil])
            #expect(harness.traffic.matching(.outbound, "reply", task: "History").isEmpty)
            await harness.close()
        }

        @Test(
            "R48 a burst of 90 pushState notices reaches HistoryTask in the order the page made them",
            .timeLimit(.minutes(1)))
        func r48HistoryBurstInOrder() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            // WebKit allows 100 pushState calls per 10 seconds.
            try await harness.run("for (var i = 0; i < 90; i++) { history.pushState(null, '', '/step/' + i); }")
            #expect(await eventually { harness.notices.value.count == 90 })
            let paths = harness.notices.value.map(\.url.path)
            #expect(paths == (0..<90).map { "/step/\($0)" })
            await harness.close()
        }

        @Test(
            "fire-and-forget calls start in the order the page sent them (300 WebBridge.notify in one burst)",
            .timeLimit(.minutes(1)))
        func fireAndForgetInOrder() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run("for (var i = 0; i < 300; i++) { WebBridge.notify('Record', i); }")
            #expect(await eventually { harness.probe.runs(of: "Record").count == 300 })
            let order = harness.probe.runs(of: "Record").map(\.options)
            #expect(order == (0..<300).map { JSONValue.int(Int64($0)) })
            await harness.close()
        }

        @Test("progress: onProgress gets both messages in order, then the result", .timeLimit(.minutes(1)))
        func progress() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                e2eCall('progress', 'Progress', null, {onProgress: function (d) { window.__log.push(['progress', d]); }})
                  .then(function (v) { window.__log.push(['result', v]); });
                """)
            try await harness.waitForSettled(["progress"])
            try await harness.waitFor("window.__log.length === 3")
            let log = try await harness.json("window.__log")
            #expect(log == [["progress", ["step": 1]], ["progress", ["step": 2]], ["result", "done"]])
            let id = try #require(harness.traffic.acceptedCallIDs(task: "Progress").first)
            let outbound = harness.traffic.all.filter { $0.direction == .outbound && $0.id == id }
            #expect(outbound.map(\.kind) == [.progress, .progress, .reply])
            #expect(outbound.allSatisfy { $0.reason == nil })
            await harness.close()
        }

        @Test("an error reply (unknown_task) rejects with a WebBridgeError and its code", .timeLimit(.minutes(1)))
        func errorReply() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run("e2eCall('missing', 'NoSuchTask', {a: 1})")
            try await harness.waitForSettled(["missing"])
            let outcome = try await harness.outcome("missing")
            #expect(!outcome.ok)
            #expect(outcome.code == "unknown_task")
            #expect(outcome.isBridgeError == true)
            #expect(harness.traffic.matching(.outbound, "reply", task: nil).contains { $0.outcome == "unknown_task" })
            await harness.close()
        }

        @Test("an event from router.emit reaches every WebBridge.on listener", .timeLimit(.minutes(1)))
        func event() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                WebBridge.on('cart.updated', function (d) { window.__log.push(['first', d]); });
                WebBridge.on('cart.updated', function (d) { window.__log.push(['second', d]); });
                WebBridge.on('other', function (d) { window.__log.push(['other', d]); });
                """)
            let router = harness.router
            try await withDeadline("emit") {
                try await router.emit("cart.updated", data: ["count": 3, "sku": "A-1"] as JSONValue)
            }
            try await harness.waitFor("window.__log.length === 2")
            await idle(.milliseconds(100))
            let log = try await harness.json("window.__log")
            #expect(log == [["first", ["count": 3, "sku": "A-1"]], ["second", ["count": 3, "sku": "A-1"]]])
            await harness.close()
        }

        @Test(
            "router.callPage gets the value of a WebBridge.handle handler; a missing handler is unknown_task",
            .timeLimit(.minutes(1)))
        func nativeToPageCall() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                """
                WebBridge.handle('sum', function (o) { return o.a + o.b; });
                WebBridge.handle('later', function (o) { return new Promise(function (r) { setTimeout(function () { r({twice: o * 2}); }, 10); }); });
                """)
            let router = harness.router
            let sum = try await withDeadline("callPage sum") {
                try await router.callPage("sum", options: ["a": 2, "b": 40] as JSONValue, as: Int.self)
            }
            #expect(sum == 42)
            let later = try await withDeadline("callPage later") { try await router.callPage("later", options: 21) }
            #expect(later == ["twice": 42])
            await #expect {
                _ = try await withDeadline("callPage missing") { try await router.callPage("missing") }
            } throws: { error in
                (error as? BridgeError)?.code == "unknown_task"
            }
            #expect(harness.traffic.matching(.inbound, "reply").map(\.outcome) == ["ok", "ok", "unknown_task"])
            await harness.close()
        }

        @Test("an AbortSignal in the page cancels the native task (Task.isCancelled)", .timeLimit(.minutes(1)))
        func cancel() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            try await harness.run(
                "window.__abort = new AbortController(); e2eCall('slow', 'Slow', null, {signal: window.__abort.signal});"
            )
            #expect(await eventually { harness.probe.runs(of: "Slow").count == 1 })
            let id = try #require(harness.probe.runs(of: "Slow").first?.callID)
            try await harness.run("window.__abort.abort()")
            #expect(await eventually { !harness.probe.cancelledCallIDs.isEmpty })
            #expect(harness.probe.cancelledCallIDs == [id])
            #expect(harness.probe.uncancelledCallIDs.isEmpty)
            try await harness.waitForSettled(["slow"])
            let outcome = try await harness.outcome("slow")
            #expect(outcome.code == "cancelled")
            #expect(await eventually { !harness.traffic.matching(.outbound, "reply", id: id).isEmpty })
            #expect(harness.traffic.matching(.inbound, "cancel", id: id).map(\.outcome) == [nil])
            #expect(harness.traffic.matching(.outbound, "reply", id: id).map(\.outcome) == ["cancelled"])
            await idle(.milliseconds(100))
            #expect(try await harness.value("window.__settleCount.slow", as: Int.self) == 1)
            await harness.close()
        }

        @Test("a fire-and-forget call (WebBridge.notify) runs the task and gets no reply", .timeLimit(.minutes(1)))
        func fireAndForget() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            #expect(try await harness.isTrue("WebBridge.notify('Record', {n: 7})"))
            #expect(await eventually { harness.probe.runs(of: "Record").count == 1 })
            let run = try #require(harness.probe.runs(of: "Record").first)
            #expect(run.callID == nil)
            #expect(run.options == ["n": 7])
            #expect(run.source == MessageSource.mainFrame(server.origin))
            await idle(.milliseconds(100))
            #expect(harness.traffic.matching(.outbound, "reply").isEmpty)
            #expect(try await harness.json("window.__rx") == [])
            await harness.close()
        }

        @Test(
            "bodies the shim never writes: a JSON string is no message, a lone surrogate drops the body, leading blanks are fine",
            .timeLimit(.minutes(1)))
        func unusualRelayBodies() async throws {
            let (harness, server) = try await Self.open()
            defer { server.stop() }
            // Posted straight to the relay (not through the shim's JSON.stringify, which escapes lone surrogates).
            try await harness.run(
                """
                function post(text) { window.dispatchEvent(new CustomEvent('webbridge:post', {detail: text})); }
                post('{"v":1,"kind":"call","id":"lone","task":"Record","options":{"s":"\\ud800x"}}');
                post(JSON.stringify(JSON.stringify({v: 1, kind: 'call', id: 'quoted', task: 'Record', options: {}})));
                post(' \\n{"v":1,"kind":"call","id":"blank","task":"Record","options":{"s":"ok"}}');
                """)
            #expect(await eventually { !harness.probe.runs(of: "Record").isEmpty })
            await idle(.milliseconds(200))
            let runs = harness.probe.runs(of: "Record")
            #expect(runs.map(\.callID) == ["blank"])
            #expect(runs.first?.options == ["s": "ok"])
            // The engine has no UTF-8 for a string with a lone surrogate (it arrives empty, an invalid
            // message without an id); a JSON string body is not unwrapped into a message.
            #expect(!runs.contains { $0.callID == "lone" || $0.callID == "quoted" })
            await harness.close()
        }
    }
}
#endif
