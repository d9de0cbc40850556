import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

/// Regression tests for faults found by the reliability work (issue 6): each pins one kind of
/// fault in the router's reply paths, so it cannot come back.
///
/// Kind of fault: a reply taking a path that reaches the wrong frame, a reply path left
/// unanswered, a native-to-page call that waits forever.
@Suite("Reliability: reply paths under faults")
struct RouterFaultTests {
    private static let widgetOrigin = "https://widgets.example"

    private static func router(gates: Gates, limits: BridgeLimits = BridgeLimits()) throws -> BridgeRouter {
        let wait = ClosureTask(name: "wait") { (_: NoOptions, context: CallContext) -> String in
            await gates.wait(context.callID ?? "")
            return "done"
        }
        let widget = ClosureTask(name: "widget", policy: .origins([OriginPattern(widgetOrigin)], allowsSubframes: true))
        {
            (_: NoOptions, context: CallContext) -> String in
            try await context.progress(["step": 1])
            return "widget-data"
        }
        return try makeRouter([wait, widget], limits: limits)
    }

    @Test("A subframe message without a reply path never settles a main-frame call by script")
    func subframeRepliesStayOutOfTheMainFrame() async throws {
        let gates = Gates()
        let router = try Self.router(gates: gates)
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.send("wait", id: "m-1")
        #expect(await settle { gates.waitingCount == 1 })
        let widgetFrame = MessageSource.subframe(Self.widgetOrigin)
        let adsFrame = MessageSource.subframe("https://ads.example.net")
        // An allowed subframe's own call: its reply and progress must not be evaluated in the main frame.
        page.send("widget", id: "w-1", from: widgetFrame)
        // The same frame reusing the main frame's pending id, a refused frame posting a broken
        // body or an unknown kind that names it: none of these may answer "m-1" in the main frame.
        page.send("widget", id: "m-1", from: widgetFrame)
        page.post(body: .string(#"{"v":1,"kind":"call","id":"m-1","task":"wait""#), from: adsFrame)
        page.post(["v": 1, "kind": "teleport", "id": "m-1"], from: adsFrame)
        let deep = String(repeating: "[", count: 70) + "1" + String(repeating: "]", count: 70)
        page.post(body: .string(#"{"id":"m-1","task":"wait","options":"# + deep + "}"), from: adsFrame)
        #expect(await settle { log.all.filter { $0.direction == .outbound && $0.kind == .reply }.count == 5 })
        #expect(page.messages(for: "w-1").isEmpty, "a subframe's reply or progress reached the main frame")
        #expect(page.messages(for: "m-1").isEmpty, "a subframe settled the main frame's pending call")
        #expect(
            log.all.filter { $0.direction == .outbound && $0.kind == .reply }.allSatisfy {
                $0.reason == .noReplyPath
            })
        gates.release("m-1")
        #expect(await page.reply(for: "m-1")["data"] == "done")
        #expect(page.messages(for: "m-1").count == 1)
        // With a reply path the subframe gets its answer there, and only there.
        let answered = await page.call("widget", id: "w-2", from: widgetFrame, replyHandler: true)
        #expect(answered["data"] == "widget-data")
        #expect(page.deliveries.filter { $0.message?["id"] == "w-2" }.map(\.path) == [.replyHandler])
    }

    @Test("A router released with calls in flight answers their reply handlers with unavailable")
    func releasedRouterAnswersReplyHandlers() async throws {
        let gates = Gates()
        let replies = ReplyLog()
        weak var weakRouter: BridgeRouter?
        do {
            let router = try Self.router(gates: gates)
            weakRouter = router
            // No page channel: main-frame calls keep their reply handler; subframe calls always do.
            router.receive(
                .string(jsonText(["v": 1, "kind": "call", "id": "m-1", "task": "wait"])),
                from: .mainFrame(appOrigin), replyHandler: replies.handler("m-1"))
            router.receive(
                .string(jsonText(["v": 1, "kind": "call", "id": "w-1", "task": "widget"])),
                from: .subframe(Self.widgetOrigin), replyHandler: replies.handler("w-1"))
            #expect(await settle { gates.waitingCount == 1 })
        }
        #expect(await settle { weakRouter == nil }, "the router is not retained by its running calls")
        #expect(
            await settle { replies.notAnsweredOnce.isEmpty },
            "reply handlers left unanswered: \(replies.notAnsweredOnce)")
        #expect(replies.message("m-1")?["error"]?.string("code") == "unavailable")
        #expect(replies.message("m-1")?["id"] == "m-1")
        let widget = replies.message("w-1")
        #expect(widget?["data"] == "widget-data" || widget?["error"]?.string("code") == "unavailable")
    }

    @Test("A native-to-page call from an already cancelled Swift task throws cancelled, also without a timeout")
    func callPageFromCancelledTask() async throws {
        let page = InMemoryPage(router: try makeRouter())
        let outcome = Mutex<String?>(nil)
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await page.router.callPage("never", timeout: nil)
                outcome.withLock { $0 = "answered" }
            } catch {
                outcome.withLock { $0 = (error as? BridgeError)?.code ?? "\(error)" }
            }
        }
        let settled = await settle(tries: 4000) { outcome.withLock { $0 } != nil }
        if !settled, let id = page.messages.last(where: { $0["kind"] == "call" })?.string("id") {
            page.answer(id, data: 1)  // unblock the caller so the failure is reported, not a hang
        }
        await caller.value
        #expect(settled, "the call waited for the page although its task was cancelled")
        #expect(outcome.withLock { $0 } == "cancelled")
        #expect(page.router.pendingCountsForTesting.pageCalls == 0)
    }

    @Test("A page answer over the size or depth limit, or unreadable, fails the native call at once")
    func oversizedPageAnswer() async throws {
        let page = InMemoryPage(router: try makeRouter(limits: BridgeLimits(maxPayloadBytes: 2000, maxDepth: 8)))
        var deep: JSONValue = 1
        for _ in 0..<10 { deep = [deep] }
        let answers: [(String, (String) -> Void)] = [
            ("payload_too_large", { id in page.answer(id, data: .string(String(repeating: "x", count: 3000))) }),
            ("nesting_too_deep", { id in page.answer(id, data: deep) }),
            ("invalid_message", { id in page.post(body: .string(#"{"v":1,"kind":"reply","id":"\#(id)","ok":tru"#)) }),
        ]
        for (expected, answer) in answers {
            let outcome = Mutex<String?>(nil)
            let before = page.messages.filter { $0["kind"] == "call" }.count
            let caller = Task {
                do {
                    _ = try await page.router.callPage("pick", timeout: nil)
                    outcome.withLock { $0 = "answered" }
                } catch {
                    outcome.withLock { $0 = (error as? BridgeError)?.code ?? "\(error)" }
                }
            }
            #expect(await settle { page.messages.filter { $0["kind"] == "call" }.count == before + 1 })
            let id = try #require(page.messages.last { $0["kind"] == "call" }?.string("id"))
            answer(id)
            let settled = await settle(tries: 4000) { outcome.withLock { $0 } != nil }
            if !settled { page.answer(id, data: 1) }
            await caller.value
            #expect(outcome.withLock { $0 } == expected)
            #expect(
                page.messages(for: id).filter { $0["kind"] == "reply" }.isEmpty,
                "an error reply for a native call id was sent to the page")
        }
        #expect(page.router.pendingCountsForTesting.pageCalls == 0)
    }

    @Test("After close() a cancel or a page reply naming a settled call gets no second final reply")
    func noSecondReplyAfterClose() async throws {
        let gates = Gates()
        let router = try Self.router(gates: gates)
        let log = TrafficLog(router)
        let page = InMemoryPage(router: router)
        page.send("wait", id: "m-1")
        #expect(await settle { gates.waitingCount == 1 })
        await router.close()
        #expect(await page.reply(for: "m-1")["error"]?.string("code") == "unavailable")
        let replies = ReplyLog()
        router.receive(
            .string(jsonText(["v": 1, "kind": "cancel", "id": "m-1"])), from: .mainFrame(appOrigin),
            replyHandler: replies.handler("cancel"))
        router.receive(
            .string(jsonText(["v": 1, "kind": "reply", "id": "m-1", "ok": true, "data": 1])),
            from: .mainFrame(appOrigin),
            replyHandler: replies.handler("reply"))
        router.receive(
            .string(jsonText(["v": 1, "kind": "call", "id": "m-2", "task": "wait"])), from: .mainFrame(appOrigin),
            replyHandler: replies.handler("call"))
        #expect(await settle { replies.notAnsweredOnce.isEmpty })
        #expect(replies.answers("cancel") == [nil] && replies.answers("reply") == [nil])
        #expect(
            replies.message("call")?["error"]?.string("code") == "unavailable", "a call after close is still answered")
        #expect(page.messages(for: "m-1").count == 1)
        #expect(log.all.filter { $0.direction == .outbound && $0.kind == .reply && $0.id == "m-1" }.count == 1)
    }
}
