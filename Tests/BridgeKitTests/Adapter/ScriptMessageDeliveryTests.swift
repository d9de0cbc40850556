import BridgeKit
import Foundation
import Synchronization
import Testing

/// The WebKit with-reply handler's logic (``ScriptMessageDelivery``): one round trip per call,
/// and messages from a web view that is not the attached one never reach the router.
@Suite("Apple adapter: message delivery through the message's reply")
struct ScriptMessageDeliveryTests {
    private static let echo = ClosureTask(name: "echo") { (options: JSONValue, _: CallContext) in options }

    /// Delivers one call and returns the reply blocks' answers and the scripts the page got.
    private static func deliver(isFromAttachedWebView: Bool, source: MessageSource = .mainFrame(appOrigin))
        async throws -> (answers: [String?], scripts: [String], router: BridgeRouter)
    {
        let router = try makeRouter([echo])
        let scripts = Mutex<[String]>([])
        router.connect(PageChannel { script in scripts.withLock { $0.append(script) } })
        let answers = Mutex<[String?]>([])
        ScriptMessageDelivery.deliver(
            .string(#"{"v":1,"kind":"call","id":"c1","task":"echo","options":{"a":1}}"#),
            from: source, isFromAttachedWebView: isFromAttachedWebView,
            to: MessageHandlerProxy(router: router),
            reply: { json in answers.withLock { $0.append(json) } })
        _ = await eventually { answers.withLock { !$0.isEmpty } }
        try await Task.sleep(for: .milliseconds(50))
        return (answers.withLock { $0 }, scripts.withLock { $0 }, router)
    }

    @Test("a main-frame call's final reply goes back through the message's reply, with no reply script")
    func finalReplyThroughReplyHandler() async throws {
        let (answers, scripts, _) = try await Self.deliver(isFromAttachedWebView: true)
        #expect(answers.count == 1)
        let reply = try #require(answers.first ?? nil)
        #expect(reply.contains(#""id":"c1""#) && reply.contains(#""ok":true"#), "the final reply: \(reply)")
        #expect(!scripts.contains { $0.contains("c1") }, "no reply script through evaluateJavaScript: \(scripts)")
    }

    @Test("the script route stays for reply paths that do not carry final replies (acknowledgement, then a script)")
    func scriptRouteWithoutCarrier() async throws {
        let router = try makeRouter([Self.echo])
        let scripts = Mutex<[String]>([])
        router.connect(PageChannel { script in scripts.withLock { $0.append(script) } })
        let answers = Mutex<[String?]>([])
        MessageHandlerProxy(router: router).receive(
            .string(#"{"v":1,"kind":"call","id":"c2","task":"echo","options":{"a":1}}"#), from: .mainFrame(appOrigin),
            replyHandler: ReplyHandler { json in answers.withLock { $0.append(json) } })
        #expect(await eventually { scripts.withLock { $0.contains { $0.contains("c2") } } })
        #expect(answers.withLock { $0 } == [nil], "acknowledged with undefined")
    }

    @Test("a message from another web view sharing the controller is answered unavailable and never routed")
    func otherWebView() async throws {
        let (answers, scripts, _) = try await Self.deliver(isFromAttachedWebView: false)
        #expect(answers.count == 1)
        let reply = try #require(answers.first ?? nil)
        #expect(reply.contains(#""code":"unavailable""#) && reply.contains(#""id":"c1""#), "\(reply)")
        #expect(scripts.isEmpty, "nothing is evaluated in the attached web view")
    }

    @Test("the reply block runs on the main actor")
    func replyOnMainActor() async throws {
        let onMainActor = Mutex<Bool?>(nil)
        ScriptMessageDelivery.deliver(
            .string(#"{"v":1,"kind":"call","id":"c3","task":"echo","options":1}"#),
            from: .mainFrame(appOrigin), isFromAttachedWebView: true,
            to: MessageHandlerProxy(router: try makeRouter([Self.echo])),
            reply: { _ in
                MainActor.assertIsolated()
                onMainActor.withLock { $0 = true }
            })
        #expect(await eventually { onMainActor.withLock { $0 } == true })
    }
}
