import BridgeKit
import BridgeKitTesting
import Foundation
import Synchronization
import Testing

@testable import BridgeKit

/// Attack 18: a page the app does not serve sent 15 MiB bodies, and the router read each one
/// whole before its policy refused it, holding up every other web view on the main actor. A large
/// body from a sender no policy admits is now refused before it is read.
@Suite("Policy: large bodies from refused senders")
struct EarlyRefusalTests {
    static let stranger = MessageSource(origin: SecurityOrigin("https://evil.example"), isMainFrame: true)

    /// A shim-shaped call whose options nest too deep: read, it is `nesting_too_deep`; refused
    /// unread, it is `forbidden`.
    static func body(id: String, size: Int) -> String {
        #"{"v":1,"kind":"call","id":"\#(id)","task":"echo","options":"# + String(repeating: "[", count: size)
    }

    @Test("a large call from an origin no policy admits is refused forbidden under its id, unread")
    func refusedUnread() async throws {
        let page = InMemoryPage(router: try makeRouter([echoTask]))
        page.post(body: .string(Self.body(id: "big-1", size: 100_000)), from: Self.stranger, replyHandler: true)
        let reply = await page.reply(for: "big-1")
        #expect(reply["error"]?.string("code") == "forbidden", "\(reply)")
        #expect(reply["error"]?["details"]?.string("reason") == "origin_not_allowed", "\(reply)")
    }

    @Test("below 64 KiB, or when a task's own policy admits the sender, the body is read as before")
    func readOtherwise() async throws {
        let small = InMemoryPage(router: try makeRouter([echoTask]))
        small.post(body: .string(Self.body(id: "small-1", size: 1000)), from: Self.stranger, replyHandler: true)
        let smallReply = await small.reply(for: "small-1")
        #expect(smallReply["error"]?.string("code") == "nesting_too_deep", "\(smallReply)")

        let open = ClosureTask(
            name: "open", policy: .origins([OriginPattern("https://evil.example")])
        ) { (_: JSONValue, _: CallContext) in "ok" }
        let admitting = InMemoryPage(router: try makeRouter([echoTask, open]))
        admitting.post(body: .string(Self.body(id: "big-2", size: 100_000)), from: Self.stranger, replyHandler: true)
        let admitted = await admitting.reply(for: "big-2")
        #expect(admitted["error"]?.string("code") == "nesting_too_deep", "\(admitted)")
    }

    @Test("the id is read from the shim's prefix only: none for another shape, an escape or a control byte")
    func shimCallID() {
        func id(_ text: String) -> String? {
            Array(text.utf8).withUnsafeBufferPointer { CallEnvelopeScan.shimCallID(in: $0) }
        }
        #expect(id(#"{"v":1,"kind":"call","id":"k-1","task":"t"}"#) == "k-1")
        #expect(id(#"{"kind":"call","v":1,"id":"k-1","task":"t"}"#) == nil)
        #expect(id(#"{"v":1,"kind":"call","id":"k\"1","task":"t"}"#) == nil)
        #expect(id("{\"v\":1,\"kind\":\"call\",\"id\":\"k\u{1}1\",\"task\":\"t\"}") == nil)
        #expect(id(#"{"v":1,"kind":"call","id":""#) == nil)
        #expect(id(#"{"v":1,"kind":"call","id":"\#(String(repeating: "a", count: 300))","task":"t"}"#) == nil)
    }

    @Test(
        "admitsSender: the router's policy or any task's own; a body the host left unread is forbidden before payload_too_large"
    )
    func unreadBody() async throws {
        let router = try makeRouter([echoTask])
        #expect(router.admitsSender(.mainFrame(appOrigin)))
        #expect(!router.admitsSender(Self.stranger))
        #expect(!router.admitsSender(MessageSource(origin: nil, isMainFrame: true)))
        let replies = Mutex<[String?]>([])
        router.receiveHead(
            #"{"v":1,"kind":"call","id":"big-2","task":"echo","options":"xx"#, byteCount: 300_000_000,
            reason: .overLimit, from: Self.stranger,
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(await eventually { replies.withLock { !$0.isEmpty } })
        let json = try #require(replies.withLock { $0.first } ?? nil)
        let reply = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        #expect(reply["id"] == "big-2")
        #expect(reply["error"]?.string("code") == "forbidden", "\(reply)")

        let open = ClosureTask(
            name: "open", policy: .origins([OriginPattern("https://evil.example")])
        ) { (_: JSONValue, _: CallContext) in "ok" }
        let admitting = try makeRouter([echoTask, open])
        #expect(admitting.admitsSender(Self.stranger), "a task's own policy admits it")
        await router.close()
        await admitting.close()
    }

    @Test(
        "a head read because the sender was not admitted is forbidden, also once a task admits the sender; a head over the limit of an admitted sender is payload_too_large",
        arguments: [
            (admitted: false, reason: HeadOnlyReason.senderNotAdmitted, code: "forbidden"),
            (admitted: true, reason: HeadOnlyReason.senderNotAdmitted, code: "forbidden"),
            (admitted: true, reason: HeadOnlyReason.overLimit, code: "payload_too_large"),
        ])
    func headOfUnadmittedSender(admitted: Bool, reason: HeadOnlyReason, code: String) async throws {
        let open = ClosureTask(
            name: "open", policy: .origins([OriginPattern("https://evil.example")])
        ) { (_: JSONValue, _: CallContext) in "ok" }
        let router = try makeRouter(admitted ? [echoTask, open] : [echoTask])
        let replies = Mutex<[String?]>([])
        router.receiveHead(
            #"{"v":1,"kind":"call","id":"head-1","task":"open","options":"xx"#, byteCount: 300_000_000,
            reason: reason, from: Self.stranger,
            replyHandler: ReplyHandler(carriesFinalReplies: true) { json in replies.withLock { $0.append(json) } })
        #expect(await eventually { replies.withLock { !$0.isEmpty } })
        try await Task.sleep(for: .milliseconds(20))
        #expect(replies.withLock { $0.count } == 1, "answered once")
        let json = try #require(replies.withLock { $0.first } ?? nil)
        let reply = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        #expect(reply["id"] == "head-1")
        #expect(reply["error"]?.string("code") == code, "\(reply)")
        #expect(router.heldBytes == 0)
        await router.close()
    }
}
