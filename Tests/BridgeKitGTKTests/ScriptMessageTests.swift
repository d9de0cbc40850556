#if WebKitGTK
import BridgeKitGTK
import Foundation
import Testing

extension GTKWrapperTests {
    @MainActor
    @Suite("Script message handlers")
    struct ScriptMessages {
        /// Collects messages and answers with a function of the envelope.
        @MainActor
        final class Inbox {
            var messages: [GTKScriptMessage] = []
            var envelopes: [RelayEnvelope] = []
            var answer: (RelayEnvelope) -> String? = { _ in nil }

            func receive(_ message: GTKScriptMessage) {
                messages.append(message)
                guard
                    let envelope = try? JSONDecoder().decode(RelayEnvelope.self, from: Data(message.bodyJSONText.utf8))
                else {
                    return
                }
                envelopes.append(envelope)
                if let text = answer(envelope) {
                    message.reply?.returnValue(text)
                }
            }
        }

        @Test(
            "world handler with reply: origin and main-frame flag are right in every frame, each reply reaches its frame",
            .timeLimit(.minutes(1)))
        func relayRoundTripAcrossFrames() throws {
            let a = try LoopbackServer()
            let b = try LoopbackServer()
            defer {
                a.stop()
                b.stop()
            }
            a.routes["/"] = .init(
                body: relayPage(
                    name: "main",
                    body: "<iframe src=\"/frame\"></iframe><iframe src=\"\(b.origin)/frame\"></iframe>"))
            a.routes["/frame"] = .init(body: relayPage(name: "same"))
            b.routes["/frame"] = .init(body: relayPage(name: "cross"))

            let view = try GTKWebView()
            defer { finish(view) }
            let inbox = Inbox()
            inbox.answer = { envelope in
                envelope.body.hasPrefix("hello-")
                    ? "reply|\(envelope.origin)|\(envelope.mainFrame)|\(envelope.body)" : ""
            }
            try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) {
                inbox.receive($0)
            }
            try view.addUserScript(
                testRelaySource, world: "bridgekit", frames: .allFrames, injectionTime: .documentStart)
            try view.load(uri: a.origin + "/")
            #expect(waitUntil { inbox.envelopes.filter { $0.body.hasPrefix("ack:") }.count == 3 })

            let expected: [(name: String, origin: String, main: Bool)] = [
                ("main", a.origin, true), ("same", a.origin, false), ("cross", b.origin, false),
            ]
            for frame in expected {
                let hello = inbox.envelopes.first { $0.body == "hello-\(frame.name)" }
                #expect(hello?.origin == frame.origin, "origin of \(frame.name)")
                #expect(hello?.mainFrame == frame.main, "main-frame flag of \(frame.name)")
                // The ack comes from the frame that received the reply, so it proves where the reply went.
                let ack = "ack:reply|\(frame.origin)|\(frame.main)|hello-\(frame.name)"
                let acks = inbox.envelopes.filter { $0.body == ack }
                #expect(acks.count == 1, "reply for \(frame.name) reached exactly its frame")
                #expect(acks.first?.origin == frame.origin && acks.first?.mainFrame == frame.main)
            }
            #expect(inbox.messages.allSatisfy { $0.isString && $0.reply != nil })
        }

        @Test("a handler in a named world is invisible to the page world", .timeLimit(.minutes(1)))
        func pageWorldCannotSeeWorldHandler() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) { _ in }
            try loadAndWait(view, html: "<title>iso</title>", title: "iso")
            #expect(try await view.evaluateJavaScriptReturningJSON("typeof window.webkit") == #""undefined""#)
            #expect(
                try await view.evaluateJavaScriptReturningJSON(
                    "typeof window.webkit.messageHandlers.webbridge.postMessage", inWorld: "bridgekit")
                    == #""function""#)
        }

        @Test(
            "reply values keep every character; errors reject; a dropped reply resolves with null",
            .timeLimit(.minutes(1)))
        func replyKinds() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            let tricky = "a\u{0}b \"q\" it's \u{2028} 😀"
            // Large replies are handed to WebKit from the string's own storage, not copied: every character still counts.
            let large = String(repeating: "x\u{0}é✓😀<", count: 20_000) + "end"
            var dropped = 0
            try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) { message in
                switch message.bodyJSONText {
                case "value": message.reply?.returnValue(tricky)
                case "large": message.reply?.returnValue(large)
                case "error":
                    message.reply?.returnError("nope")
                    #expect(message.reply?.returnValue("late") == false, "a reply is one-shot")
                default: dropped += 1  // the reply object is released unanswered
                }
            }
            try loadAndWait(view, html: "<title>replies</title>", title: "replies")
            let script = """
                var h = window.webkit.messageHandlers.webbridge;
                window.out = {};
                h.postMessage('value').then(function (v) { window.out.value = v; });
                h.postMessage('large').then(function (v) { window.out.large = v; });
                h.postMessage('error').then(function () { window.out.error = 'resolved'; }, function (e) { window.out.error = e.message; });
                h.postMessage('drop').then(function (v) { window.out.drop = v; });
                """
            try await view.evaluateJavaScript(script, inWorld: "bridgekit")
            #expect(waitUntil { dropped == 1 })
            var out: [String: String?] = [:]
            for _ in 0..<100 where out.count < 4 {
                settle(.milliseconds(20))
                let json = try await view.evaluateJavaScriptReturningJSON("window.out", inWorld: "bridgekit")
                out = (try? JSONDecoder().decode([String: String?].self, from: Data((json ?? "{}").utf8))) ?? [:]
            }
            #expect(out["value"] == .some(tricky))
            #expect(out["large"] == .some(large), "a large reply keeps every character")
            #expect(out["error"] == .some("nope"))
            #expect(out["drop"] == .some(nil))
        }

        @Test("a page-world handler without reply gets strings raw and objects as JSON", .timeLimit(.minutes(1)))
        func pageWorldWithoutReply() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            var messages: [GTKScriptMessage] = []
            try view.registerScriptMessageHandler(name: "plain", withReply: false) { messages.append($0) }
            try loadAndWait(view, html: "<title>plain</title>", title: "plain")
            let result = try await view.evaluateJavaScriptReturningJSON(
                "var r = window.webkit.messageHandlers.plain.postMessage('x\\u0000y'); "
                    + "window.webkit.messageHandlers.plain.postMessage({k: [1, 'two']}); typeof r")
            // WebKitGTK 2.50 returns a Promise from postMessage even without reply (seen: "object").
            #expect(result == #""object""#)
            #expect(waitUntil { messages.count == 2 })
            #expect(messages.first?.bodyJSONText == "x\u{0}y")
            #expect(messages.first?.isString == true)
            #expect(messages.last?.bodyJSONText == #"{"k":[1,"two"]}"#)
            #expect(messages.last?.isString == false)
            #expect(messages.allSatisfy { $0.reply == nil })
        }

        @Test(
            "a short array of strings and nulls arrives as its elements; its JSON text is JSON.stringify's; other arrays as JSON",
            .timeLimit(.minutes(1)))
        func stringElements() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            var messages: [GTKScriptMessage] = []
            try view.registerScriptMessageHandler(name: "plain", withReply: false) { messages.append($0) }
            try loadAndWait(view, html: "<title>elements</title>", title: "elements")
            let tricky = #"q\"b\\ \u2028 ü 😀 <\/x> \n\t\u0001"#  // JavaScript source of the string
            let expectedJSON = try await view.evaluateJavaScriptReturningJSON(
                "JSON.stringify(['a', null, undefined, \"\(tricky)\"])")
            _ = try await view.evaluateJavaScriptReturningJSON(
                "var h = window.webkit.messageHandlers.plain; h.postMessage(['a', null, undefined, \"\(tricky)\"]); "
                    + "h.postMessage(['a', 1]); h.postMessage(new Array(\(GTKScriptMessage.maxStringElements + 1)).fill('s')); "
                    + "h.postMessage(['\\ud800x', '']); 0")
            #expect(waitUntil { messages.count == 4 })
            guard messages.count == 4 else { return }
            #expect(messages[0].stringElements == ["a", nil, nil, "q\"b\\ \u{2028} ü 😀 </x> \n\t\u{01}"])
            #expect(messages[0].isString == false)
            let json = try JSONDecoder().decode(String.self, from: Data((expectedJSON ?? "").utf8))
            #expect(messages[0].bodyJSONText == json, "the same text as JSON.stringify")
            #expect(messages[1].stringElements == nil)
            #expect(messages[1].bodyJSONText == #"["a",1]"#)
            #expect(messages[2].stringElements == nil, "longer than maxStringElements")
            #expect(messages[2].bodyJSONText.hasPrefix(#"["s","s""#))
            // The UTF-8 as the engine wrote it, shared. A string with a lone surrogate has no UTF-8
            // form: JavaScriptCore gives no bytes for it at all (WebKitGTK 2.50).
            #expect(
                messages[0].utf8Elements
                    == ["a", nil, nil, "q\"b\\ \u{2028} ü 😀 </x> \n\t\u{01}"].map { $0.map { Data($0.utf8) } })
            #expect(messages[3].utf8Elements == [Data(), Data()])
            #expect(messages[3].stringElements == ["", ""])
            #expect(messages[1].utf8Elements == nil)
        }

        @Test(
            "R24 registering a name twice never adds it twice, in any world; unregister then register works",
            .timeLimit(.minutes(1)))
        func r24DuplicateRegistration() async throws {
            let view = try GTKWebView()
            defer { finish(view) }
            var first = 0
            var second = 0
            try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) { _ in
                first += 1
            }
            #expect(throws: GTKWebViewError.handlerAlreadyRegistered(name: "webbridge", world: "bridgekit")) {
                try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) { _ in
                    second += 1
                }
            }
            #expect(throws: GTKWebViewError.handlerAlreadyRegistered(name: "webbridge", world: "bridgekit")) {
                try view.registerScriptMessageHandler(name: "webbridge", withReply: false) { _ in second += 1 }
            }
            #expect(view.scriptMessageHandlerNames == ["webbridge"])
            try loadAndWait(view, html: "<title>dup</title>", title: "dup")
            try await view.evaluateJavaScript(
                "window.webkit.messageHandlers.webbridge.postMessage('one')", inWorld: "bridgekit")
            #expect(waitUntil { first == 1 })
            #expect(second == 0)
            #expect(try await view.evaluateJavaScriptReturningJSON("typeof window.webkit") == #""undefined""#)

            #expect(view.unregisterScriptMessageHandler(name: "webbridge"))
            #expect(view.unregisterScriptMessageHandler(name: "webbridge") == false)
            #expect(
                try await view.evaluateJavaScriptReturningJSON(
                    "typeof (window.webkit && window.webkit.messageHandlers.webbridge)", inWorld: "bridgekit")
                    == #""undefined""#, "unregistering removes the handler from the loaded document")
            try view.registerScriptMessageHandler(name: "webbridge", world: "bridgekit", withReply: true) { _ in
                second += 1
            }
            try await view.evaluateJavaScript(
                "window.webkit.messageHandlers.webbridge.postMessage('two')", inWorld: "bridgekit")
            #expect(waitUntil { second == 1 })
            #expect(first == 1)
        }

        @Test("invalid names are rejected before reaching WebKit", .timeLimit(.minutes(1)))
        func invalidNames() throws {
            let view = try GTKWebView()
            defer { finish(view) }
            #expect(throws: GTKWebViewError.self) {
                try view.registerScriptMessageHandler(name: "", withReply: false) { _ in }
            }
            #expect(throws: GTKWebViewError.self) {
                try view.registerScriptMessageHandler(name: "a\u{0}b", withReply: false) { _ in }
            }
            #expect(throws: GTKWebViewError.self) {
                try view.registerScriptMessageHandler(name: "ok", world: "", withReply: false) { _ in }
            }
            #expect(view.scriptMessageHandlerNames.isEmpty)
        }
    }
}
#endif
