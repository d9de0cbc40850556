import Foundation

#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import CWebKitGTK

/// `--profile-steps COUNT [BYTES]`: splits a call's time in the web process into its steps, each
/// timed in the page with `performance.now()` over COUNT repetitions (20 × COUNT for a synchronous step; the median of 7 rounds, each
/// of which goes through every view and world in turn):
/// the events between the page world and the relay's isolated world, the relay's reads, the
/// post and its reply with and without BridgeKit around them. Prints microseconds per step.
/// From ``largeBytes`` (a text payload, as in the large rows) the steps are the per-byte ones
/// instead: encoding and parsing, the relay's narrowing pass by pass, and the post of a wide and
/// of a narrowed body (``LargeSteps``).
///
/// Thread: main actor (the GTK thread).
@MainActor
enum StepsProfile {
    /// The relay's isolated world (``GTKMessageHandlerRegistry``'s default).
    static let relayWorld = "bridgekit"

    /// Steps timed in the page's own world. `fn(text)` is run COUNT times; async steps are awaited
    /// one at a time.
    static let pageSteps = #"""
        (function () {
          'use strict';
          var text = '{"v":1,"kind":"call","id":"p-1","task":"Echo","options":' + JSON.stringify(window.__stepsPayload) + '}';
          var reply = '{"v":1,"kind":"reply","id":"nobody","ok":true,"data":' + JSON.stringify(window.__stepsPayload) + '}';
          return {
            'page: JSON.stringify of the call (shim encodeCall)': function () { JSON.stringify({ v: 1, kind: 'call', id: 'p-1', task: 'Echo', options: window.__stepsPayload }); },
            'page: JSON.parse of the reply (shim receive)': function () { JSON.parse(reply); },
            'page: CustomEvent dispatched to no listener': function () { window.dispatchEvent(new CustomEvent('bench:none', { detail: text })); },
            'page: one re-used CustomEvent (initCustomEvent) dispatched to no listener': (function () { var e = new CustomEvent('bench:none'); return function () { e.initCustomEvent('bench:none', false, false, text); window.dispatchEvent(e); e.initCustomEvent('bench:none', false, false, null); }; })(),
            'page: messageHandlers[channel] look-up, absent in this world (shim directHandler)': function () { return window.webkit.messageHandlers.webbridge; },
            'page → relay → page: webbridge:hello answered by webbridge:ready (two cross-world events, no IPC)': function () { window.dispatchEvent(new CustomEvent('webbridge:hello', { detail: '1' })); },
            'page: await postMessage to a page-world reply handler (BridgeKitGTK handler, answers the text)': function () { return window.webkit.messageHandlers.benchreply.postMessage(text); },
            'page: await WebBridge.call("Echo", 100 B)': function () { return window.WebBridge.call('Echo', window.__stepsPayload); },
            'page: an empty Promise turn (await Promise.resolve())': function () { return Promise.resolve(); },
            'page: shim alone: await call(100 B) of a WebBridge whose transport answers at once (no events, no IPC)': (function () {
              var payload = JSON.stringify(window.__stepsPayload);
              var bridge = window.__shimFactory.createWebBridge({ transport: { post: function (t) {
                return Promise.resolve('{"v":1,"kind":"reply","id":' + JSON.stringify(JSON.parse(t).id) + ',"ok":true,"data":' + payload + '}');
              } } });
              return function () { return bridge.call('Echo', window.__stepsPayload); };
            })(),
            'page: shim alone, the reply handed to _receive in a promise job (no engine promise to adopt)': (function () {
              var payload = JSON.stringify(window.__stepsPayload);
              var bridge = window.__shimFactory.createWebBridge({ transport: { post: function (t) {
                var answer = '{"v":1,"kind":"reply","id":' + JSON.stringify(JSON.parse(t).id) + ',"ok":true,"data":' + payload + '}';
                Promise.resolve().then(function () { bridge._receive(answer); });
              } } });
              return function () { return bridge.call('Echo', window.__stepsPayload); };
            })(),
            'page: the same transport\'s work without the shim (stringify, parse the call, a promise turn, parse the reply)': (function () {
              var payload = JSON.stringify(window.__stepsPayload);
              return function () {
                var t = JSON.stringify({ v: 1, kind: 'call', id: 'p-1', task: 'Echo', options: window.__stepsPayload });
                return Promise.resolve('{"v":1,"kind":"reply","id":' + JSON.stringify(JSON.parse(t).id) + ',"ok":true,"data":' + payload + '}').then(JSON.parse);
              };
            })(),
            'page: Map set, get and delete through Function.prototype.call.bind (the shim\'s uncurry)': (function () {
              var uncurry = Function.prototype.bind.bind(Function.prototype.call);
              var set = uncurry(Map.prototype.set), get = uncurry(Map.prototype.get), del = uncurry(Map.prototype.delete);
              var m = new Map(); var n = 0;
              return function () { var k = 'p-' + (n++ & 1023); set(m, k, n); get(m, k); del(m, k); };
            })(),
            'page: Map set, get and delete called directly': (function () {
              var m = new Map(); var n = 0;
              return function () { var k = 'p-' + (n++ & 1023); m.set(k, n); m.get(k); m.delete(k); };
            })(),
            'page: Object.prototype.toString through the shim\'s uncurry, on a plain object (binaryKind)': (function () {
              var tag = Function.prototype.bind.bind(Function.prototype.call)(Object.prototype.toString);
              var o = { a: 1 };
              return function () { tag(o); };
            })()
          };
        })()
        """#

    /// Steps timed in the relay's world.
    static let relaySteps = #"""
        (function () {
          'use strict';
          var payload = JSON.stringify(window.__stepsPayload);
          var text = '{"v":1,"kind":"call","id":"r-1","task":"Echo","options":' + payload + '}';
          var reply = '{"v":1,"kind":"reply","id":"nobody","ok":true,"data":' + payload + '}';
          var h = window.webkit.messageHandlers.webbridge;
          return {
            'relay: messageHandlers[channel] look-up (relay handler())': function () { return window.webkit.messageHandlers.webbridge; },
            'relay: self.origin': function () { return window.origin; },
            'relay: window.top === window': function () { return window.top === window; },
            'relay: envelope string ("main " + origin + "\\n" + body)': function () { return ('main ' + window.origin + '\n' + text).length; },
            'relay: CustomEvent dispatched to no listener': function () { window.dispatchEvent(new CustomEvent('bench:none', { detail: reply })); },
            'relay → page: webbridge:message with a reply for no call (shim onMessage, receive)': function () { window.dispatchEvent(new CustomEvent('webbridge:message', { detail: reply })); },
            'relay: await postMessage of the envelope to the webbridge handler (IPC, router, Echo)': function () { return h.postMessage('main ' + window.origin + '\n' + text); }
          };
        })()
        """#

    /// The runner, installed in each world: `__steps.start(steps, count, round)` runs every step
    /// once (in an order rotated by `round`) and stores `{name: µs per repetition}` in
    /// `__steps.result`.
    static let runner = #"""
        window.__steps = {
          result: null,
          start: function (steps, count, round) {
            var self = this;
            self.result = null;
            (async function () {
              var out = {};
              var names = Object.keys(steps);
              for (var k = 0; k < names.length; k++) {
                var name = names[(k + round) % names.length];
                var fn = steps[name];
                var first = fn();
                var isAsync = first && typeof first.then === 'function';
                if (isAsync) { await first; }
                var n = isAsync ? count : count * 20;
                var t0 = performance.now();
                if (isAsync) {
                  for (var i = 0; i < n; i++) { await fn(); }
                } else {
                  for (var j = 0; j < n; j++) { fn(); }
                }
                out[name] = (performance.now() - t0) * 1000 / n;
              }
              return out;
            })().then(function (r) { self.result = r; }, function (e) { self.result = { error: String(e && e.message || e) }; });
          }
        };
        """#

    /// Steps timed in a ``PeerWebView`` (WebKit's C API, no BridgeKitGTK, no router) that has
    /// BridgeKit's shim and relay: the engine's bare reply echo against the same echo behind the
    /// shim and the relay's two worlds, in one view and one web process.
    static let rawSteps = #"""
        (function () {
          'use strict';
          var text = JSON.stringify(window.__stepsPayload);
          return {
            'raw view: await postMessage(JSON text) to a page-world reply handler, JSON.parse of the answer (the engine\'s bare reply echo)': function () { return window.webkit.messageHandlers.rawreply.postMessage(JSON.stringify(window.__stepsPayload)).then(JSON.parse); },
            'raw view: await WebBridge.call("Echo", 100 B) through the shim to a raw handler, no router (through the relay; in the page-world view, straight to the page\'s own handler)': function () { return window.WebBridge.call('Echo', window.__stepsPayload); }
          };
        })()
        """#

    /// Steps timed in the raw view's relay world: the relay's own post, without the shim and the
    /// two events.
    static let rawRelaySteps = #"""
        (function () {
          'use strict';
          var text = JSON.stringify({ v: 1, kind: 'call', id: 'r-1', task: 'Echo', options: window.__stepsPayload });
          var h = window.webkit.messageHandlers.webbridge;
          return {
            'raw view, relay world: await postMessage of the envelope to the raw handler in that world, JSON.parse of the answer': function () { return h.postMessage('main ' + window.origin + '\n' + text).then(JSON.parse); }
          };
        })()
        """#

    /// Opens a raw view with the shim and relay `scripts` (BridgeKit's, or another version's) and
    /// its two handlers, loaded and ready.
    static func openRaw(shim: String, relay: String?) async throws -> PeerWebView {
        let view = try PeerWebView()
        view.addUserScript(shim)
        if let relay { view.addUserScript(relay, world: relayWorld) }
        view.register("rawreply", withReply: true) { value, reply in
            guard let reply, let text = jsc_value_to_string(value) else { return }
            defer { g_free(text) }
            if let answer = jsc_value_new_string(jsc_value_get_context(value), text) {
                webkit_script_message_reply_return_value(reply, answer)
                g_object_unref(UnsafeMutableRawPointer(answer))
            }
        }
        // What a router must at least do: find the call's id and options in the relay's envelope
        // ("main <origin>\n<call JSON>") and answer with a reply message that holds them.
        view.register("webbridge", world: relay == nil ? nil : relayWorld, withReply: true) { value, reply in
            guard let reply, let cText = jsc_value_to_string(value) else { return }
            defer { g_free(cText) }
            let body = String(cString: cText)
            guard let idStart = body.range(of: "\"id\":\""),
                let idEnd = body[idStart.upperBound...].firstIndex(of: "\""),
                let options = body.range(of: "\"options\":")
            else { return }
            let id = body[idStart.upperBound..<idEnd]
            let data = body[options.upperBound..<body.index(before: body.endIndex)]
            let answerText = "{\"v\":1,\"kind\":\"reply\",\"id\":\"\(id)\",\"ok\":true,\"data\":\(data)}"
            if let answer = jsc_value_new_string(jsc_value_get_context(value), answerText) {
                webkit_script_message_reply_return_value(reply, answer)
                g_object_unref(UnsafeMutableRawPointer(answer))
            }
        }
        view.loadHTML("<!doctype html><html><body><p>steps</p></body></html>", baseURI: BenchPage.origin + "/")
        try await view.waitUntil("the raw steps page") {
            await view.evaluateReturningJSON(
                "typeof window.WebBridge === 'object' && document.readyState === 'complete'")
                == "true"
        }
        return view
    }

    /// One view's share of a round: the label its steps are printed under, the steps it times in
    /// each of its worlds, and how to evaluate a script there (returning its JSON).
    struct Target {
        let label: String
        let worlds: [(world: String?, steps: String)]
        let evaluate: (String, String?) async throws -> String?
    }

    /// Opens the raw views: one with BridgeKit's shim and relay and, when the environment names a
    /// directory in `BRIDGEBENCH_BASELINE_JS` (holding another version's `webbridge.js` and
    /// `webbridge-relay.js`), one with those: an A/B of two versions of the page scripts in one
    /// process. With `BRIDGEBENCH_STEPS_PAGE_WORLD` set, one more has the shim and its handler in
    /// the page's world and no relay (``openRaw(shim:relay:)``): what the two-world design costs a call.
    static func openRawTargets(payload: String, large: Bool) async throws -> ([Target], [PeerWebView]) {
        var views = [("", try await openRaw(shim: WebBridgeShim.source, relay: WebBridgeRelay.source), true)]
        if let directory = ProcessInfo.processInfo.environment["BRIDGEBENCH_BASELINE_JS"] {
            let shim = try String(contentsOfFile: directory + "/webbridge.js", encoding: .utf8)
            let relay = try String(contentsOfFile: directory + "/webbridge-relay.js", encoding: .utf8)
            views.append(("baseline ", try await openRaw(shim: shim, relay: relay), true))
        }
        if ProcessInfo.processInfo.environment["BRIDGEBENCH_STEPS_PAGE_WORLD"] != nil {
            views.append(("page-world channel ", try await openRaw(shim: WebBridgeShim.source, relay: nil), false))
        }
        let pageSteps = large ? LargeSteps.raw : rawSteps
        let relaySteps = large ? LargeSteps.rawRelay : rawRelaySteps
        var targets: [Target] = []
        for (label, view, hasRelay) in views {
            let worlds: [(world: String?, steps: String)] =
                hasRelay ? [(nil, pageSteps), (relayWorld, relaySteps)] : [(nil, pageSteps)]
            for (world, _) in worlds {
                _ = await view.evaluateReturningJSON("window.__stepsPayload = \(payload); \(runner); 1", world: world)
            }
            targets.append(Target(label: label, worlds: worlds) { await view.evaluateReturningJSON($0, world: $1) })
        }
        return (targets, views.map(\.1))
    }

    /// Times every target's steps, `rounds` times: each round goes through every view and world in
    /// turn, so that the machine's load of a moment hits all of them alike and the views can be
    /// compared with each other, not only the two worlds of one view.
    static func time(_ targets: [Target], count: Int, rounds: Int) async throws -> [String: [Double]] {
        var samples: [String: [Double]] = [:]
        for round in 0..<rounds {
            for target in targets {
                for (world, steps) in target.worlds {
                    _ = try await target.evaluate("window.__steps.start(\(steps), \(count), \(round)); 1", world)
                    var json: String?
                    while json == nil || json == "null" {
                        try await Task.sleep(for: .milliseconds(20))
                        json = try await target.evaluate("window.__steps.result", world)
                    }
                    let data = Data((json ?? "{}").utf8)
                    if let error = try? JSONDecoder().decode([String: String].self, from: data)["error"] {
                        throw EngineBench.Failure.page(error)
                    }
                    for (name, value) in try JSONDecoder().decode([String: Double].self, from: data) {
                        samples[target.label + name, default: []].append(value)
                    }
                }
            }
        }
        return samples
    }

    /// Opens BridgeKit's view and the raw views, times their steps with rounds interleaved, and
    /// prints the medians. Returns the exit status.
    static func run(count: Int, bytes: Int = 100, rounds: Int = 7) async -> Int32 {
        do {
            let bench = try await EngineBench.open()
            try bench.webView.registerScriptMessageHandler(name: "benchreply", world: nil, withReply: true) {
                message in
                _ = message.reply?.returnValue(message.bodyJSONText)
            }
            let large = bytes >= LargeSteps.largeBytes
            let value = bytes > 10 * 1024 ? BenchPayload.text(bytes: bytes) : BenchPayload.make(bytes: bytes)
            let payload = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            for world in [nil, relayWorld] as [String?] {
                try await bench.webView.evaluateJavaScript("window.__stepsPayload = \(payload);", inWorld: world)
                try await bench.webView.evaluateJavaScript(runner, inWorld: world)
            }
            // The shim's factory, for a WebBridge of the page's own with a transport that answers at
            // once: the shim's cost per call without events or IPC. Evaluated with `window`
            // shadowed, so it installs nothing.
            try await bench.webView.evaluateJavaScript(
                "window.__shimFactory = (function (module, window) {\n\(WebBridgeShim.source)\n;return module.exports; })({ exports: {} }, undefined);",
                inWorld: nil)
            let webView = bench.webView
            let bridgeKit = Target(
                label: "",
                worlds: [
                    (nil, large ? LargeSteps.page : pageSteps), (relayWorld, large ? LargeSteps.relay : relaySteps),
                ]
            ) { try await webView.evaluateJavaScriptReturningJSON($0, inWorld: $1) }
            let (raw, rawViews) = try await openRawTargets(payload: payload, large: large)
            defer { for view in rawViews { view.close() } }
            let samples = try await time([bridgeKit] + raw, count: count, rounds: rounds)
            await bench.close()
            let lines = samples.sorted { $0.key < $1.key }
            print(
                "bridgebench: steps of a \(bytes) B call, µs per repetition (\(count) per round, 20 × \(count) for synchronous steps), median (min–max of \(rounds) rounds, each through every view in turn)"
            )
            for (name, values) in lines {
                let spread = Spread(values)
                print(
                    String(format: "%8.2f  (%.2f–%.2f)  ", spread.median, spread.min, spread.max) + name)
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("bridgebench: \(error)\n".utf8))
            return 1
        }
    }
}
#endif
