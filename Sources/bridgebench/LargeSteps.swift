#if WebKitGTK
/// The steps ``StepsProfile`` times for a large call (`--profile-steps COUNT BYTES`, BYTES from
/// ``largeBytes``): what a call of a text payload costs per byte in the web process. The page's
/// encoding and parsing, the relay's narrowing of a body with characters above U+00FF
/// (js/webbridge-relay.js, `narrow`) pass by pass as it was until issue 25's third pass and in
/// the one pass it makes since, and the post of the body as the shim made it
/// (two bytes per character) against the same body narrowed (one byte per character), so that
/// the cost of each pass can be set against what it saves downstream.
///
/// Every script returns `{name: function}` for ``StepsProfile/runner``; each reads the payload
/// from `window.__stepsPayload` in its own world.
enum LargeSteps {
    /// From this many bytes a call is profiled with these steps (the relay's large bodies start
    /// at 65,536 UTF-16 code units).
    static let largeBytes = 64 * 1024

    /// Shared by the scripts below: the call's text as the shim writes it (`text`), the relay's
    /// escaping of non-ASCII characters (`escapeNonASCII`) and the same text narrowed to one byte
    /// per character (`narrowed`), as the relay posts it.
    static let prelude = #"""
        var text = JSON.stringify({ v: 1, kind: 'call', id: 'c-1', task: 'Echo', options: window.__stepsPayload });
        var WIDE = /[^\u0000-\u00ff]/;
        var NON_ASCII = /[^\u0000-\u007f]/g;
        function escapeUnit(c) { return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4); }
        var encoder = new TextEncoder();
        var decoder = new TextDecoder();
        var escaped = text.replace(NON_ASCII, escapeUnit);
        var escapedBytes = encoder.encode(escaped);
        var narrowed = decoder.decode(escapedBytes);
        var HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];
        """#

    /// Steps in the page's world.
    static let page = #"""
        (function () {
          'use strict';
          \#(prelude)
          var data = JSON.stringify(window.__stepsPayload);
          var replyWide = '{"v":1,"kind":"reply","id":"nobody","ok":true,"data":' + data + '}';
          var replyASCII = decoder.decode(encoder.encode(replyWide.replace(NON_ASCII, escapeUnit)));
          return {
            'page: JSON.stringify of the call (shim encodeCall)': function () { return JSON.stringify({ v: 1, kind: 'call', id: 'p-1', task: 'Echo', options: window.__stepsPayload }); },
            'page: JSON.parse of the reply as native writes it (non-ASCII as \\u escapes, one byte per character)': function () { return JSON.parse(replyASCII); },
            'page: JSON.parse of the reply with its non-ASCII characters (two bytes per character, as the bare reply echo answers)': function () { return JSON.parse(replyWide); },
            'page: await WebBridge.call("Echo")': function () { return window.WebBridge.call('Echo', window.__stepsPayload); },
            'page: await postMessage(JSON.stringify(payload)) to a page-world reply handler (BridgeKitGTK, no router), JSON.parse of the answer': function () { return window.webkit.messageHandlers.benchreply.postMessage(JSON.stringify(window.__stepsPayload)).then(JSON.parse); }
          };
        })()
        """#

    /// Steps in the relay's world: the narrowing pass by pass and the two posts.
    static let relay = #"""
        (function () {
          'use strict';
          \#(prelude)
          var h = window.webkit.messageHandlers.webbridge;
          return {
            'relay: narrowing 1: WIDE.test (a character above U+00FF?)': function () { return WIDE.test(text); },
            'relay: narrowing 2: count of the non-ASCII characters (regular-expression exec loop)': function () { var n = 0; NON_ASCII.lastIndex = 0; while (NON_ASCII.exec(text) !== null) { n++; } return n; },
            'relay: narrowing 3: replace of the non-ASCII characters by \\u escapes': function () { return text.replace(NON_ASCII, escapeUnit); },
            'relay: narrowing 4: TextEncoder.encode of the escaped text': function () { return encoder.encode(escaped); },
            'relay: narrowing 5: TextDecoder.decode into a one-byte string': function () { return decoder.decode(escapedBytes); },
            'relay: narrowing in one pass (each UTF-16 unit into a byte array, \\u escapes written there, as js/webbridge-relay.js narrow does), then TextDecoder.decode': function () {
              var units = text.length; var limit = units >> 4; var bytes = new Uint8Array(units + 5 * limit); var count = 0; var n = 0;
              for (var i = 0; i < units; i++) {
                var c = text.charCodeAt(i);
                if (c < 0x80) { bytes[n++] = c; continue; }
                if (++count > limit) { return text; }
                bytes[n] = 92; bytes[n + 1] = 117; bytes[n + 2] = HEX[c >> 12]; bytes[n + 3] = HEX[(c >> 8) & 15]; bytes[n + 4] = HEX[(c >> 4) & 15]; bytes[n + 5] = HEX[c & 15]; n += 6;
              }
              return decoder.decode(bytes.subarray(0, n));
            },
            'relay: TextEncoder.encode of the call text as the shim wrote it': function () { return encoder.encode(text); },
            'relay: await postMessage([origin, "main", body]) to BridgeKit (router, Echo), body narrowed': function () { return h.postMessage([window.origin, 'main', narrowed]); },
            'relay: await postMessage([origin, "main", body]) to BridgeKit (router, Echo), body as the shim wrote it': function () { return h.postMessage([window.origin, 'main', text]); }
          };
        })()
        """#

    /// Steps in the raw view's page world (``StepsProfile/openRaw(shim:relay:)``).
    static let raw = #"""
        (function () {
          'use strict';
          return {
            'raw view: await postMessage(JSON text) to a page-world reply handler, JSON.parse of the answer (the engine\'s bare reply echo)': function () { return window.webkit.messageHandlers.rawreply.postMessage(JSON.stringify(window.__stepsPayload)).then(JSON.parse); },
            'raw view: await WebBridge.call("Echo") through the shim and relay to a raw handler in the relay\'s world (no router)': function () { return window.WebBridge.call('Echo', window.__stepsPayload); }
          };
        })()
        """#

    /// Steps in the raw view's relay world: the relay's post without the shim, its events and its
    /// narrowing.
    static let rawRelay = #"""
        (function () {
          'use strict';
          \#(prelude)
          var h = window.webkit.messageHandlers.webbridge;
          return {
            'raw view, relay world: await postMessage([origin, "main", body]) to the raw handler, body as the shim wrote it': function () { return h.postMessage([window.origin, 'main', text]).then(JSON.parse); },
            'raw view, relay world: await postMessage([origin, "main", body]) to the raw handler, body narrowed': function () { return h.postMessage([window.origin, 'main', narrowed]).then(JSON.parse); }
          };
        })()
        """#
}
#endif
