/// The page every end-to-end measurement runs in. Both paths run in the same document:
///
/// - **router**: `WebBridge.call("BenchEcho", payload)` through BridgeKit's shim (page world),
///   relay (isolated world), message handler, router, ``BenchEchoTask`` and reply script;
/// - **bare**: `window.webkit.messageHandlers[handler].postMessage(JSON.stringify({id, data}))`
///   to a page-world handler registered on the `GTKWebView` directly, which evaluates
///   `window.__bareReceive(<the same text>)`; the page resolves the call by id;
/// - **bare-typed**: the same, through the `baretyped` handler, which decodes the text into
///   ``BenchPayload`` with `JSONDecoder` and encodes it again with `JSONEncoder` (the typed
///   task's codec work without BridgeKit);
/// - **bare-typed-hop**: the same through the `baretypedhop` handler, which decodes and encodes
///   in a Swift task on the global executor and evaluates from the main actor: the thread hop a
///   concurrent task (``BenchEchoTask``) makes, without BridgeKit.
///
/// `__bench.start(mode, key, count, width, verify)` runs `count` calls of the payload `key`, one at
/// a time (`width` 1) or `width` at a time through `Promise.all`, checks every answer (by size; and,
/// unless `verify` is false, one more call compared in full before the timing starts), and stores
/// `{ms, count}` (measured with `performance.now()`) or `{error}` in `__bench.result`.
enum BenchPage {
    static let origin = "https://bench.bridgekit.invalid"

    /// The page's checks of an echo, `check(sent, got)` and `same(a, b)`; the peer designs' page
    /// (``PeerPage``) uses the same ones.
    static let echoChecks = #"""
        function check(sent, got) {
          if (!got || got.label.length !== sent.label.length || got.records.length !== sent.records.length) {
            throw new Error('the echo differs from the payload');
          }
        }
        function same(a, b) {
          if (a === b) { return true; }
          if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) { return false; }
          if (Array.isArray(a) !== Array.isArray(b)) { return false; }
          var keys = Object.keys(a);
          if (keys.length !== Object.keys(b).length) { return false; }
          return keys.every(function (k) { return Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]); });
        }
        """#

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><title>bridgebench</title></head>
        <body>
        <script>
        (function () {
          'use strict';
          var payloads = {};
          var bareSeq = 0;
          var barePending = new Map();
          window.__bareReceive = function (m) {
            var resolve = barePending.get(m.id);
            if (resolve) { barePending.delete(m.id); resolve(m.data); }
          };
          function bareCall(data, handler) {
            return new Promise(function (resolve) {
              var id = ++bareSeq;
              barePending.set(id, resolve);
              window.webkit.messageHandlers[handler].postMessage(JSON.stringify({ id: id, data: data }));
            });
          }
          function routerCall(data) { return window.WebBridge.call('BenchEcho', data); }
          function routerNowCall(data) { return window.WebBridge.call('BenchEchoNow', data); }
          function routerSyncCall(data) { return window.WebBridge.call('BenchEchoSync', data); }
          function routerRawCall(data) { return window.WebBridge.call('Echo', data); }
          \#(BenchPage.echoChecks)
          async function run(mode, key, count, width, verify) {
            var payload = payloads[key];
            if (!payload) { throw new Error('no payload ' + key); }
            var call = { router: routerCall, 'router-now': routerNowCall, 'router-raw': routerRawCall, 'router-sync': routerSyncCall,
                         bare: function (data) { return bareCall(data, 'bareecho'); },
                         'bare-typed': function (data) { return bareCall(data, 'baretyped'); },
                         'bare-typed-hop': function (data) { return bareCall(data, 'baretypedhop'); } }[mode];
            if (!call) { throw new Error('no mode ' + mode); }
            // One full comparison before the timing: the echo must be the same value, every character
            // (left out when only the calls themselves are measured, e.g. their peak memory).
            if (verify !== false && !same(await call(payload), payload)) {
              throw new Error('the echo is not the same value as the payload');
            }
            var t0 = performance.now();
            if (width <= 1) {
              for (var i = 0; i < count; i++) { check(payload, await call(payload)); }
            } else {
              for (var done = 0; done < count; done += width) {
                var batch = [];
                for (var j = 0; j < Math.min(width, count - done); j++) { batch.push(call(payload)); }
                (await Promise.all(batch)).forEach(function (got) { check(payload, got); });
              }
            }
            return { ms: performance.now() - t0, count: count };
          }
          window.__bench = {
            result: null,
            ready: function () { return typeof window.WebBridge === 'object' && !!window.webkit; },
            setPayload: function (key, value) { payloads[key] = value; },
            dropPayload: function (key) { delete payloads[key]; },
            start: function (mode, key, count, width, verify) {
              var self = this;
              self.result = null;
              run(mode, key, count, width, verify).then(function (r) { self.result = r; }, function (e) {
                self.result = { error: String((e && (e.code ? e.code + ': ' + e.message : e.message)) || e) };
              });
            }
          };
        })();
        </script>
        </body>
        </html>
        """#
}
