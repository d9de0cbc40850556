#if WebKitGTK
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests {
    /// Replies that outlive the moment their message arrived. WebKitGTK reads every reply value
    /// with its own shared JavaScript context (`API::SerializedScriptValue::deserializationContext`),
    /// which it drops after 10 s without use and creates anew on the next use; a reply value made
    /// in the message's (now old) context is then read by another virtual machine, and releasing
    /// the last reference to that context destroyed its virtual machine outside WebKit (the crash
    /// of issue 20: `JSC::VM::~VM` under `g_object_unref`, 2 runs of 2 under load before the fix).
    @MainActor
    @Suite("Script message replies over time")
    struct ReplyLifetime {
        /// More than WebKit's idle time for its shared JavaScript context (10 s), with slack for
        /// its timer.
        static let pastIdle: Duration = .seconds(12)

        @Test(
            "replies held past WebKit's idle time for its JavaScript context reach the page intact",
            .timeLimit(.minutes(1)))
        func repliesAfterContextIdle() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            var held: [(String, GTKScriptMessage.Reply)] = []
            try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) { message in
                if let reply = message.reply { held.append((message.bodyJSONText, reply)) }
            }
            try loadAndWait(view, html: "<title>late</title>", title: "late")
            let count = 40
            try await view.evaluateJavaScript(
                """
                var h = window.webkit.messageHandlers.webbridge;
                window.out = {};
                for (var i = 0; i < \(count); i++) {
                  (function (k) { h.postMessage('m' + k).then(function (v) { window.out['m' + k] = v; }); })(i);
                }
                """, inWorld: "bridgekit")
            #expect(waitUntil { held.count == count })
            // Nothing uses WebKit's shared context now (no messages, no script results).
            settle(Self.pastIdle)
            func text(_ name: String) -> String {
                // Long enough to be a heap string with its own storage in any engine.
                name + ":" + String(repeating: "late reply é✓😀 ", count: name.hasSuffix("0") ? 5_000 : 20)
            }
            for (name, reply) in held { #expect(reply.returnValue(text(name))) }
            held.removeAll()
            var out: [String: String] = [:]
            for _ in 0..<200 where out.count < count {
                settle(.milliseconds(20))
                let json = try await view.evaluateJavaScriptReturningJSON("window.out", inWorld: "bridgekit")
                out = (try? JSONDecoder().decode([String: String].self, from: Data((json ?? "{}").utf8))) ?? [:]
            }
            #expect(out.count == count)
            for index in 0..<count {
                #expect(out["m\(index)"] == text("m\(index)"), "reply m\(index)")
            }
        }

        @Test(
            "an unanswered reply released past WebKit's idle time resolves the page's Promise with null",
            .timeLimit(.minutes(1)))
        func droppedReplyAfterContextIdle() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            var held: [GTKScriptMessage] = []
            try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) {
                held.append($0)
            }
            try loadAndWait(view, html: "<title>dropped</title>", title: "dropped")
            try await view.evaluateJavaScript(
                """
                window.out = 'pending';
                window.webkit.messageHandlers.webbridge.postMessage('x').then(function (v) { window.out = v; });
                """, inWorld: "bridgekit")
            #expect(waitUntil { held.count == 1 })
            settle(Self.pastIdle)
            held.removeAll()
            var json: String? = #""pending""#
            for _ in 0..<200 where json == #""pending""# {
                settle(.milliseconds(20))
                json = try await view.evaluateJavaScriptReturningJSON("window.out", inWorld: "bridgekit")
            }
            #expect(json == "null", "the Promise resolved with null")
        }
    }
}
#endif
