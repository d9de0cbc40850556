/// The page of the peer comparison (``PeerBench``), loaded into a ``PeerWebView``: the page halves
/// of the bare reply-handler echo, the bare `evaluate_javascript` echo and the peer designs, each
/// built from the mechanics in `shared/reference/anchors-bridges.md` (transport and escaping),
/// not from their code:
///
/// - **reply** / **reply-typed**: `postMessage(JSON.stringify(payload))` to a handler registered
///   with reply; the returned Promise settles with the reply, a string the page parses
///   (WebKitGTK 2.40+, `WKScriptMessageHandlerWithReply`). Text both ways, as BridgeKit sends:
///   WebKitGTK rebuilds a posted object in the UI process's JavaScriptCore context, which costs
///   far more than the string (measured: 10 KB of records about 8x slower).
/// - **eval-typed**: `postMessage(JSON.stringify({id, data}))`; native evaluates
///   `window.__peerEval(id, <JSON>)` (the existing bare echo's mechanics).
/// - **wvjb** (WebViewJavascriptBridge): `{handlerName, data, callbackId}` pushed onto a queue, a
///   hidden iframe navigated to `https://__wvjb_queue_message__/`; native cancels that navigation,
///   pulls `WebViewJavascriptBridge._fetchQueue()` (a JSON string) and answers each message with
///   `WebViewJavascriptBridge._handleMessageFromObjC('<escaped JSON>')`, dispatched through
///   `setTimeout` (WVJB's default "alert-box safety timeout").
/// - **dsbridge** (DSBridge, asynchronous call): `prompt("_dsbridge=echo", JSON.stringify({data,
///   _dscbstub}))` with a global callback `window.dscbN`; native answers later with
///   `try{dscbN(JSON.parse(decodeURIComponent("…")).data);delete window.dscbN;}catch(e){}`,
///   collected and evaluated at most every 50 ms. **dsbridge-sync**: the synchronous call, whose
///   answer is `prompt`'s own return value.
/// - **capacitor**: `postMessage({type, callbackId, pluginId, methodName, options})`; native
///   evaluates `window.Capacitor.fromNative({callbackId:'…', …, data:<JSON>})`.
/// - **cordova**: `postMessage([callbackId, service, action, [payload]])`; native evaluates
///   `cordova.require('cordova/exec').nativeCallback('<id>',1,<JSON>,false,false)`.
///
/// `__peer.start(mode, key, count, width, verify)` runs like ``BenchPage``'s `__bench.start` (one
/// full comparison first unless `verify` is `false`, then `count` calls, `width` at a time, each answer checked by size) and stores
/// `{ms}` or `{error}` in `__peer.result`.
enum PeerPage {
    static let origin = "https://peer.bridgekit.invalid"

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><title>bridgebench peers</title></head>
        <body>
        <script>
        (function () {
          'use strict';
          var payloads = {};
          var post = function (name, value) { return window.webkit.messageHandlers[name].postMessage(value); };

          // The bare evaluate_javascript echo.
          var evalSeq = 0, evalPending = new Map();
          window.__peerEval = function (id, data) {
            var resolve = evalPending.get(id);
            if (resolve) { evalPending.delete(id); resolve(data); }
          };
          function evalCall(data) {
            return new Promise(function (resolve) {
              var id = ++evalSeq;
              evalPending.set(id, resolve);
              post('peereval', JSON.stringify({ id: id, data: data }));
            });
          }

          // WebViewJavascriptBridge: queue, hidden iframe, _fetchQueue pull, quoted-string replies.
          var wvjbQueue = [], wvjbCallbacks = {}, wvjbUid = 0, wvjbFrame = null;
          window.WebViewJavascriptBridge = {
            _fetchQueue: function () { var text = JSON.stringify(wvjbQueue); wvjbQueue = []; return text; },
            _handleMessageFromObjC: function (json) {
              setTimeout(function () {
                var message = JSON.parse(json);
                var callback = wvjbCallbacks[message.responseId];
                if (callback) { delete wvjbCallbacks[message.responseId]; callback(message.responseData); }
              }, 0);
            }
          };
          function wvjbCall(data) {
            return new Promise(function (resolve) {
              var callbackId = 'cb_' + (++wvjbUid) + '_' + new Date().getTime();
              wvjbCallbacks[callbackId] = resolve;
              wvjbQueue.push({ handlerName: 'echo', data: data, callbackId: callbackId });
              if (!wvjbFrame) {
                wvjbFrame = document.createElement('iframe');
                wvjbFrame.style.display = 'none';
                document.documentElement.appendChild(wvjbFrame);
              }
              wvjbFrame.src = 'https://__wvjb_queue_message__/';
            });
          }

          // DSBridge: prompt() with percent-encoded replies through global callbacks.
          var dsbCount = 0;
          function dsbCall(data) {
            return new Promise(function (resolve) {
              var stub = 'dscb' + (dsbCount++);
              window[stub] = resolve;
              prompt('_dsbridge=echo', JSON.stringify({ data: data, _dscbstub: stub }));
            });
          }
          function dsbSyncCall(data) {
            return Promise.resolve(JSON.parse(prompt('_dsbridge=echo', JSON.stringify({ data: data }))).data);
          }

          // Capacitor: a structured object posted, replies through Capacitor.fromNative.
          var capSeed = Math.floor(Math.random() * 134217728), capCallbacks = {};
          window.Capacitor = {
            fromNative: function (result) {
              var callback = capCallbacks[result.callbackId];
              if (callback) { delete capCallbacks[result.callbackId]; callback(result.data); }
            }
          };
          function capCall(data) {
            return new Promise(function (resolve) {
              var callbackId = String(++capSeed);
              capCallbacks[callbackId] = resolve;
              post('bridge', { type: 'message', callbackId: callbackId, pluginId: 'Echo', methodName: 'echo', options: data });
            });
          }

          // Cordova: an array posted, replies through cordova/exec's nativeCallback.
          var cdvSeed = Math.floor(Math.random() * 2000000000), cdvCallbacks = {};
          var cdvExec = {
            nativeCallback: function (callbackId, status, args, keepCallback, debug) {
              var callback = cdvCallbacks[callbackId];
              if (callback && !keepCallback) { delete cdvCallbacks[callbackId]; }
              if (callback) { callback(args); }
            }
          };
          window.cordova = { require: function (name) { return name === 'cordova/exec' ? cdvExec : null; } };
          function cdvCall(data) {
            return new Promise(function (resolve) {
              var callbackId = 'Echo' + (cdvSeed++);
              cdvCallbacks[callbackId] = resolve;
              post('cordova', JSON.parse(JSON.stringify([callbackId, 'Echo', 'echo', [data]])));
            });
          }

          var modes = {
            reply: function (data) { return post('peerreply', JSON.stringify(data)).then(JSON.parse); },
            'reply-typed': function (data) { return post('peerreplytyped', JSON.stringify(data)).then(JSON.parse); },
            'eval-typed': evalCall,
            wvjb: wvjbCall,
            dsbridge: dsbCall,
            'dsbridge-sync': dsbSyncCall,
            capacitor: capCall,
            cordova: cdvCall
          };
          \#(BenchPage.echoChecks)
          async function run(mode, key, count, width, verify) {
            var payload = payloads[key];
            var call = modes[mode];
            if (!payload) { throw new Error('no payload ' + key); }
            if (!call) { throw new Error('no mode ' + mode); }
            if (verify && !same(await call(payload), payload)) { throw new Error(mode + ': the echo is not the same value as the payload'); }
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
            return { ms: performance.now() - t0 };
          }
          window.__peer = {
            result: null,
            ready: function () { return !!(window.webkit && window.webkit.messageHandlers); },
            setPayload: function (key, value) { payloads[key] = value; },
            dropPayload: function (key) { delete payloads[key]; },
            start: function (mode, key, count, width, verify) {
              var self = this;
              self.result = null;
              run(mode, key, count, width, verify !== false).then(function (r) { self.result = r; }, function (e) {
                self.result = { error: String((e && e.message) || e) };
              });
            }
          };
        })();
        </script>
        </body>
        </html>
        """#
}
