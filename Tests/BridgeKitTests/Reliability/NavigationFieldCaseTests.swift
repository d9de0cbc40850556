import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Kind of fault: the native side of "the bridge only works on the first page" (R21): after a
/// reload or navigation the old page's calls must end quietly and the new page must be served
/// at once, even when it reuses an id the old page had in flight.
@Suite("Reliability: the native side across reloads and navigations")
struct NavigationFieldCaseTests {
    @Test("R21 after a navigation the new document is served at once; the old document's replies never reach it")
    func r21NativeSide() async throws {
        let gates = Gates()
        let wait = ClosureTask(name: "wait") { (_: NoOptions, context: CallContext) -> String in
            await gates.wait("\(context.callID ?? "")@\(context.pageGeneration)")
            return "from generation \(context.pageGeneration)"
        }
        let router = try makeRouter([wait, echoTask])
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        for reload in 0..<3 {
            // The old document has calls in flight, one of them with an id the next one reuses.
            page.send("wait", id: "same")
            page.send("wait", id: "old-\(reload)")
            #expect(await settle { gates.waitingCount == 2 })
            page.navigate()
            #expect(await settle { gates.waitingCount == 0 }, "the old document's tasks were cancelled")
            #expect(
                await page.call("echo", options: .int(Int64(reload)), id: "new-\(reload)")["data"]
                    == .int(Int64(reload)))
            page.send("wait", id: "same")
            #expect(await settle { gates.waitingCount == 1 }, "a reused id of the old document is free in the new one")
            gates.release("same@\(router.pageGeneration)")
            #expect(await settle { page.messages(for: "same").count == reload + 1 }, "one reply per served call")
            #expect(page.messages(for: "same").last?["data"] == .string("from generation \(2 * reload + 1)"))
            page.navigate()
        }
        let stale = page.deliveries.filter { $0.message?.string("id")?.hasPrefix("old-") == true }
        #expect(stale.isEmpty, "a reply of an old document reached a new one")
        #expect(log.all.filter { $0.outcome == "navigated" && $0.reason == .notDelivered }.count == 6)
        #expect(router.pendingCountsForTesting == (0, 0))
    }
}
