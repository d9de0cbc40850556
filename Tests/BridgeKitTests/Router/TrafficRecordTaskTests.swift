import BridgeKit
import BridgeKitTesting
import Foundation
import Testing

/// Kind of fault: the traffic log disagrees with itself (issue 20, item 7): a refused call's
/// inbound record said `task: null` and its reply's record `task: ""`.
@Suite("Traffic log: a refused call's records name the task the same way")
struct TrafficRecordTaskTests {
    @Test("no task known: nil on the inbound record and on the reply's; a known task on both")
    func taskNames() async throws {
        let router = try makeRouter([echoTask])
        let log = TrafficLog(router)
        for replyHandler in [false, true] {
            let page = InMemoryPage(router: router)
            let suffix = replyHandler ? "-h" : ""
            // No task member: invalid_message, answered under its id.
            page.post(["v": 1, "kind": "call", "id": .string("none\(suffix)")], replyHandler: replyHandler)
            // Not JSON, with a readable id.
            page.post(
                body: .string(#"{"v":1,"kind":"call","id":"bad\#(suffix)","task":"echo","options":tru}"#),
                replyHandler: replyHandler)
            // A task the policy refuses (a subframe), and an unknown task: the name is known.
            page.post(
                ["v": 1, "kind": "call", "id": .string("sub\(suffix)"), "task": "echo"],
                from: .subframe(appOrigin), replyHandler: true)
            _ = await page.call("missing", id: "missing\(suffix)", replyHandler: replyHandler)
            for id in ["none", "bad", "sub", "missing"].map({ $0 + suffix }) {
                #expect(await eventually { log.all.filter { $0.id == id }.count == 2 }, "\(id) \(log.all)")
                let records = log.all.filter { $0.id == id }
                let inbound = try #require(records.first { $0.direction == .inbound })
                let reply = try #require(records.first { $0.direction == .outbound })
                #expect(inbound.task == reply.task, "\(id): \(inbound) vs \(reply)")
                #expect(reply.task != "", "\(id)")
                // A body that is not JSON names no task, even when a task member is readable.
                let expected: String? =
                    id.hasPrefix("none") || id.hasPrefix("bad")
                    ? nil
                    : id.hasPrefix("missing") ? "missing" : "echo"
                #expect(reply.task == expected, "\(id)")
            }
        }
    }
}
