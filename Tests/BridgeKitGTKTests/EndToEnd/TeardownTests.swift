#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// `WebKitGTKBridgeHost.close()` and what stays alive afterwards.
    @MainActor
    @Suite("Teardown")
    struct Teardown {
        /// The proxy the host installed (``WebKitGTKBridgeHost/messageHandlerProxy``).
        static func installedProxy(of host: WebKitGTKBridgeHost) -> MessageHandlerProxy? {
            host.messageHandlerProxy
        }

        /// Opens a harness on `/page`, makes one call, and leaves one call pending.
        static func openWithPendingCall(_ server: LoopbackServer) async throws -> E2EHarness {
            server.routes["/page"] = .init(body: E2EPage.html(title: "page"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/page")
            try await harness.run("e2eCall('one', 'Echo', 1); e2eCall('slow', 'Slow', null);")
            try await harness.waitForSettled(["one"])
            #expect(await eventually { harness.probe.runs(of: "Slow").count == 1 })
            return harness
        }

        @Test(
            "R23 after close() and dropping references the view is finalized and router and proxy are freed",
            .timeLimit(.minutes(1)))
        func r23CloseFreesEverything() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            var harness: E2EHarness? = try await Self.openWithPendingCall(server)
            let probe = try #require(harness?.probe)
            let traffic = try #require(harness?.traffic)
            let finalization = try #require(harness?.view.finalization)
            weak let weakRouter = harness?.router
            weak let weakProxy = harness.flatMap { Self.installedProxy(of: $0.host) }
            weak let weakView = harness?.view
            weak let weakHost = harness?.host
            #expect(weakProxy != nil, "the host installed a proxy")
            let slowID = try #require(probe.runs(of: "Slow").first?.callID)

            await harness?.close()
            #expect(harness?.host.router == nil)
            #expect(harness?.host.webView == nil)
            harness = nil

            #expect(
                await eventually {
                    finalization.isFinalized && weakRouter == nil && weakProxy == nil && weakView == nil
                        && weakHost == nil
                })
            #expect(finalization.isFinalized, "WebKit's view was finalized")
            #expect(weakRouter == nil, "router freed")
            #expect(weakProxy == nil, "proxy freed")
            #expect(weakView == nil, "GTKWebView freed")
            #expect(weakHost == nil, "host freed")
            // The pending call was settled by close(): task cancelled, reply `unavailable` delivered while the page was there.
            // The task notes its end when it resumes on the cooperative pool, which may come after the view is gone.
            #expect(await eventually { probe.cancelledCallIDs == [slowID] })
            #expect(probe.cancelledCallIDs == [slowID])
            let reply = traffic.matching(.outbound, "reply", id: slowID)
            #expect(reply.map(\.outcome) == ["unavailable"])
            #expect(reply.first?.reason == nil, "delivered before the view was destroyed")
        }

        @Test(
            "R23 a message delivered to a retained proxy after teardown does not crash and is answered unavailable",
            .timeLimit(.minutes(1)))
        func r23RetainedProxyAnswersUnavailable() async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            var harness: E2EHarness? = try await Self.openWithPendingCall(server)
            let proxy = try #require(harness.flatMap { Self.installedProxy(of: $0.host) })
            weak let weakRouter = harness?.router
            let finalization = try #require(harness?.view.finalization)
            await harness?.close()
            harness = nil
            #expect(await eventually { weakRouter == nil && finalization.isFinalized })
            #expect(proxy.router == nil)

            let answer = Locked<[String?]>([])
            let call = #"{"v":1,"kind":"call","id":"late-1","task":"Echo","options":"x"}"#
            proxy.receive(
                .string(call), from: .mainFrame(server.origin),
                replyHandler: ReplyHandler { json in
                    answer.update { $0.append(json) }
                })
            proxy.receive(.string(call), from: .mainFrame(server.origin))  // no reply handler: dropped
            proxy.receive(
                .absent, from: .mainFrame(server.origin),
                replyHandler: ReplyHandler { json in
                    answer.update { $0.append(json) }
                })
            #expect(answer.value.count == 2)
            let first = try #require(answer.value.first)
            let text = try #require(first, "a call with an id is answered with data")
            let reply = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            #expect(reply["id"] == "late-1")
            #expect(reply["ok"] == false)
            #expect(reply["error"]?.string("code") == "unavailable")
            #expect(answer.value.last == .some(nil), "a body without an id is answered with no data")
        }
    }
}
#endif
