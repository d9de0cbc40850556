#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests.EndToEnd {
    /// A page change while a call is pending.
    @MainActor
    @Suite("Navigation during a call")
    struct Navigation {
        enum Change: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case reload
            case navigate

            var testDescription: String { rawValue }
        }

        @Test(
            "R21 a reload or navigation during a pending call: the task is cancelled, the log says navigated, the new page sees nothing and can call",
            .timeLimit(.minutes(1)), arguments: Change.allCases)
        func pageChangeDuringCall(change: Change) async throws {
            let server = try LoopbackServer()
            defer { server.stop() }
            server.routes["/first"] = .init(body: E2EPage.html(title: "first"))
            server.routes["/second"] = .init(body: E2EPage.html(title: "second"))
            let harness = try E2EHarness(allowing: [server.origin])
            try await harness.load(server.origin + "/first")
            let generation = harness.router.pageGeneration

            try await harness.run("e2eCall('slow', 'Slow', {n: 1}); window.__oldPage = true;")
            #expect(await eventually { harness.probe.runs(of: "Slow").count == 1 })
            let id = try #require(harness.probe.runs(of: "Slow").first?.callID)

            switch change {
            case .reload: try await harness.reload()
            case .navigate: try await harness.load(server.origin + "/second")
            }
            #expect(try await harness.isTrue("window.__oldPage === undefined"), "a new document is loaded")
            #expect(harness.router.pageGeneration > generation)

            // Native: the task saw cancellation; the log says the reply was not delivered: navigated.
            #expect(await eventually { !harness.probe.cancelledCallIDs.isEmpty })
            #expect(harness.probe.cancelledCallIDs == [id])
            #expect(harness.probe.uncancelledCallIDs.isEmpty)
            let replies = harness.traffic.matching(.outbound, "reply", id: id)
            #expect(replies.map(\.outcome) == ["navigated"])
            #expect(replies.first?.reason == .notDelivered)

            // The new page: its shim got nothing at all for the old call, and it can call.
            try await harness.run("e2eCall('after', 'Record', 'after ' + location.pathname)")
            try await harness.waitForSettled(["after"])
            let after = try await harness.outcome("after")
            #expect(after.ok)
            await idle(.milliseconds(200))
            let received = try await harness.value("window.__rx.concat(window.__events)", as: [ReceivedMessage].self)
            #expect(!received.contains { $0.id == id }, "the old call's id never reaches the new page")
            #expect(received.filter { $0.kind == "reply" }.count == 1, "only the new call's reply arrives")
            #expect(try await harness.value("WebBridge.pendingCount()", as: Int.self) == 0)
            #expect(harness.traffic.matching(.outbound, "reply", id: id).count == 1, "settled exactly once")
            await harness.close()
        }
    }
}

/// A native->page message as the page spy recorded it (``E2EPage/helpers``).
struct ReceivedMessage: Decodable, Sendable {
    var kind: String
    var id: String?
    var name: String?
}
#endif
