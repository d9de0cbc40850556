#if WebKitGTK
@testable import BridgeKitGTK
import CWebKitGTK
import Testing

/// The view's inbound budget as a value (``GTKWebViewCore/InboundBudget``): the main frame's
/// reserve. Attack 19: third-party iframes filled the whole budget and the main frame's calls
/// failed `memory_budget_exceeded`. The end-to-end side is in Attack 19's suite.
@Suite("Inbound budget")
struct InboundBudgetTests {
    typealias Budget = GTKWebViewCore.InboundBudget

    @Test(
        "everything but the main frame's stamped messages shares at most half; the main frame keeps the rest",
        .timeLimit(.minutes(1)))
    func mainFrameReserve() {
        var budget = Budget()
        var others = 0
        while budget.admits(.others) {
            budget.queued(bytes: 10, share: .others)
            others += 1
        }
        #expect(others == Budget.maxMessages / 2, "others stop at half the messages")
        var main = 0
        while budget.admits(.mainFrame) {
            budget.queued(bytes: 10, share: .mainFrame)
            main += 1
        }
        #expect(main == Budget.maxMessages - others, "the main frame has the other half")
        #expect(!budget.admits(.others))
        budget.handled(bytes: 10, share: .others)
        #expect(budget.admits(.others) && budget.admits(.mainFrame), "a message handled makes room for one of either")
    }

    @Test(
        "bytes: others stop at half of the bytes, the main frame goes on; handled messages give their bytes back",
        .timeLimit(.minutes(1)))
    func bytes() {
        var budget = Budget()
        budget.queued(bytes: Budget.maxBytes / 2, share: .others)
        #expect(!budget.admits(.others))
        #expect(budget.admits(.mainFrame))
        budget.queued(bytes: Budget.maxBytes / 2, share: .mainFrame)
        #expect(!budget.admits(.mainFrame), "the whole budget is spent")
        budget.handled(bytes: Budget.maxBytes / 2, share: .mainFrame)
        #expect(budget.admits(.mainFrame))
        #expect(!budget.admits(.others), "the main frame's bytes given back do not widen the others' half")
        budget.handled(bytes: Budget.maxBytes / 2, share: .others)
        #expect(budget.admits(.others))
        #expect(budget.bytes == 0 && budget.messages == 0 && budget.otherMessages == 0 && budget.otherBytes == 0)
    }

    @Test(
        "a read message's bytes: the others stop at half of them, whatever one message's size; the main frame may fill the rest, and one message of any size goes when nothing waits",
        .timeLimit(.minutes(1)))
    func queueBytes() {
        var budget = Budget()
        var fits = budget.queue(bytes: 160 << 20, share: .others)
        #expect(!fits, "one page-world message of 160 MiB does not fit the others' half")
        #expect(budget.messages == 0 && budget.bytes == 0)
        fits = budget.queue(bytes: 40 << 20, share: .others)
        #expect(fits)
        fits = budget.queue(bytes: 30 << 20, share: .others)
        #expect(!fits, "40 + 30 MiB is over the others' 64 MiB")
        fits = budget.queue(bytes: 80 << 20, share: .mainFrame)
        #expect(fits)
        fits = budget.queue(bytes: 16 << 20, share: .mainFrame)
        #expect(!fits, "40 + 80 + 16 MiB is over 128 MiB")
        var empty = Budget()
        fits = empty.queue(bytes: 200 << 20, share: .mainFrame)
        #expect(fits, "alone, the main frame's message is the router's to judge")
    }

    @Test(
        "whose share a message is: the relay's main-frame stamp (either form, to the relay's handler only) and main-frame-only handlers are the main frame's; everything else is the others'",
        .timeLimit(.minutes(1)))
    func shares() throws {
        // A context of its own, used on this thread only (JavaScriptCore's GLib API needs no GTK thread).
        let outcomes = { () -> [String] in
            guard let context = jsc_context_new() else { return ["no context"] }
            defer { g_object_unref(gRaw(context)) }
            func value(_ script: String) -> UnsafeMutablePointer<JSCValue>? {
                jsc_context_evaluate(context, script, -1)
            }
            func registration(world: String?, mainFrameOnly: Bool = false, relay: Bool = true)
                -> GTKWebViewCore.HandlerRegistration
            {
                GTKWebViewCore.HandlerRegistration(
                    world: world, withReply: true, signalID: 0, mainFrameOnly: mainFrameOnly,
                    readsRelayStamp: relay && world != nil)
            }
            let cases: [(String, GTKWebViewCore.HandlerRegistration)] = [
                (#"'main https://app.example\n{}'"#, registration(world: "relay")),
                (#"['https://app.example', 'main', '{}']"#, registration(world: "relay")),
                (#"'sub https://ads.example\n{}'"#, registration(world: "relay")),
                (#"['https://ads.example', 'sub', '{}']"#, registration(world: "relay")),
                (#"'main https://app.example\n{}'"#, registration(world: nil)),
                (#"'{"v":1,"kind":"document","document":"d1"}'"#, registration(world: "relay", mainFrameOnly: true)),
                (#"'{"v":1,"kind":"document","document":"d1"}'"#, registration(world: "relay")),
                // Another isolated world's handler (the console's): its text is never a stamp (attack 21).
                (#"'main https://app.example\n{}'"#, registration(world: "bridgekit-console", relay: false)),
            ]
            return cases.map { script, registration in
                guard let value = value(script) else { return "no value" }
                defer { g_object_unref(gRaw(value)) }
                let (share, read) = GTKWebViewCore.inboundShare(of: value, to: registration)
                return "\(share)" + (read == nil ? "" : " read")
            }
        }()
        #expect(
            outcomes == [
                "mainFrame read", "mainFrame", "others read", "others", "others", "mainFrame", "others read", "others",
            ])
    }

    @Test(
        "the relay's large form from a sender the router refuses becomes its head form: origin, frame, 1,024 code units, length; anything else is read as it is",
        .timeLimit(.minutes(1)))
    func unadmittedHead() throws {
        let context = try #require(jsc_context_new())
        defer { g_object_unref(gRaw(context)) }
        func head(_ script: String, admits: Bool) -> [String?]? {
            guard let value = jsc_context_evaluate(context, script, -1) else { return ["no value"] }
            defer { g_object_unref(gRaw(value)) }
            return JSCValueText.unadmittedHead(of: value, admits: { _, _ in admits })?.map { $0?.string }
        }
        let large =
            "['https://ads.example', 'sub', '{\"v\":1,\"kind\":\"call\",\"id\":\"a-1\",\"task\":\"t\",\"options\":\"' + '\\u00e9x'.repeat(50000) + '\"}']"
        let refused = try #require(head(large, admits: false))
        #expect(refused.count == 4)
        #expect(refused[0] == "https://ads.example" && refused[1] == "sub")
        #expect(refused[2]?.unicodeScalars.count == JSCValueText.headUnits)
        #expect(refused[2]?.hasPrefix(#"{"v":1,"kind":"call","id":"a-1""#) == true)
        #expect(refused[3] == String(54 + 100_000 + 2))
        #expect(head(large, admits: true) == nil, "an admitted sender's body is read whole")
        #expect(head("['https://ads.example', 'sub', 'x', '3']", admits: false) == nil, "not the large form")
        #expect(head("[null, 'sub', 'x']", admits: false) == nil)
        #expect(head("['o', 'top', 'x']", admits: false) == nil)
        #expect(head("'sub o\\n{}'", admits: false) == nil)
    }
}
#endif
