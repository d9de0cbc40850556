/*
 * BridgeKit WebBridge relay (protocol v1, docs/protocol.md): runs in an isolated script world in
 * every frame, where the native "webbridge" message handler lives. It forwards the page shim's
 * "webbridge:post" events to that handler, stamped with the document's security origin (`self.origin`) and "main" | "sub"
 * (one string "main <origin>\n<body>" for a body under 65,536 UTF-16 code units, else the array
 * [origin, "main" | "sub", body]; for a body over the host's limit only its head and length,
 * [origin, frame, head, length]), and hands replies back as "webbridge:message" events. Only strings cross between worlds. It defines nothing in the page world, is idempotent when
 * evaluated twice and never throws. ES2017, no build step; `createRelay({window})` for tests.
 */
(function (factory) {
  'use strict';
  var api = factory();
  if (typeof module === 'object' && module && module.exports) {
    module.exports.createRelay = api.createRelay;
  }
  if (typeof window !== 'undefined' && window && typeof window.addEventListener === 'function') {
    // Settings the host injects into this world before the relay (WebBridgeRelay.settingsScript).
    var settings = null;
    try { settings = window.__webbridgeRelaySettings; } catch (e) { settings = null; }
    api.createRelay({
      window: window,
      maxBodyUnits: settings ? settings.maxBodyUnits : undefined,
      maxUnreadPosts: settings ? settings.maxUnreadPosts : undefined,
      maxUnreadBytes: settings ? settings.maxUnreadBytes : undefined,
    });
  }
})(function () {
  'use strict';

  var MARK = '__webbridgeRelay:';
  /**
   * The one threshold of the relay, in UTF-16 code units. A body of at least this length is large:
   * it is narrowed (see `narrow`) and goes as an array of three strings, where the body is its own
   * string and is not copied into a longer one. A shorter body goes as one string, a header line
   * and the body (docs/protocol.md, "Relay"): one string is cheaper for the engine to send and for
   * native to read than an array, and narrowing it would save little.
   */
  var LARGE_BODY_UNITS = 65536;
  var LINE_BREAK = /[\r\n]/;
  var WIDE = /[^\u0000-\u00ff]/;
  var NON_ASCII = /[^\u0000-\u007f]/;
  /** The bytes of the lowercase hexadecimal digits, for the `\u` escapes `narrow` writes. */
  var HEX_DIGITS = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

  /**
   * A large body with a few characters above U+00FF, written with those (and every other
   * non-ASCII character) as JSON `\u` escapes, in a one-byte-per-character string: JavaScriptCore
   * keeps a string with any such character at two bytes per character, in this process and in
   * the app's. The body is JSON text (the shim's `JSON.stringify`), where non-ASCII characters
   * only occur inside strings and the escape means the same character (each UTF-16 code unit of
   * a surrogate pair gets its own escape). Other bodies, and bodies with more than one non-ASCII
   * character in 16, unchanged.
   *
   * One pass over the body writes its ASCII bytes and escapes into a byte array, which
   * `TextDecoder` turns into a one-byte string: a count, `replace` and `TextEncoder` on the
   * two-byte string took about 2.5 times as long in WebKit's web process (docs/performance.md,
   * "The large rows (issue 25, third pass)").
   */
  function narrow(body, decoder, Bytes) {
    if (body.length < LARGE_BODY_UNITS || !decoder || !Bytes || !WIDE.test(body)) { return body; }
    var units = body.length;
    var limit = units >> 4;
    var bytes = new Bytes(units + 5 * limit);
    var count = 0;
    var n = 0;
    for (var i = 0; i < units; i++) {
      var c = body.charCodeAt(i);
      if (c < 0x80) {
        bytes[n++] = c;
        continue;
      }
      if (++count > limit) { return body; }
      bytes[n] = 92;  // backslash
      bytes[n + 1] = 117;  // u
      bytes[n + 2] = HEX_DIGITS[c >> 12];
      bytes[n + 3] = HEX_DIGITS[(c >> 8) & 15];
      bytes[n + 4] = HEX_DIGITS[(c >> 4) & 15];
      bytes[n + 5] = HEX_DIGITS[c & 15];
      n += 6;
    }
    return decoder.decode(bytes.subarray(0, n));
  }

  /** How many UTF-16 code units of an oversized body are posted, for native to find its id. */
  var HEAD_UNITS = 1024;

  /**
   * What is posted for one body: `frame + " " + origin + "\n" + body` when the body is shorter than
   * `LARGE_BODY_UNITS` and the origin is a string without a line break (a serialized origin never
   * has one), else the array [origin, frame, body].
   */
  function envelope(origin, frame, body) {
    if (body.length < LARGE_BODY_UNITS && typeof origin === 'string' && !LINE_BREAK.test(origin)) {
      return frame + ' ' + origin + '\n' + body;
    }
    return [origin, frame, body];
  }

  /**
   * What is posted for a body over the native limit in UTF-8 bytes (`overLimit`): only its head
   * and its length in UTF-16 code units, [origin, frame, head, String(length)], which native
   * refuses with `payload_too_large`. The body is never copied out of the page's process.
   */
  function oversized(origin, frame, body) {
    return [origin, frame, body.slice(0, HEAD_UNITS), String(body.length)];
  }

  /**
   * Whether `body` has more than `limit` bytes of UTF-8. Cheap for most bodies: one UTF-16 code
   * unit is one to three bytes (a surrogate pair, two units, is four), so a body of more than
   * `limit` units is over and one of at most a third of it is not; only bodies in between are
   * counted, and the count stops once it passes `limit`.
   */
  function overLimit(body, limit) {
    var units = body.length;
    if (units > limit) { return true; }
    if (units * 3 <= limit) { return false; }
    var bytes = 0;
    for (var i = 0; i < units; i++) {
      var c = body.charCodeAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : (c >= 0xd800 && c < 0xe000) ? 2 : 3;
      if (bytes > limit) { return true; }
    }
    return false;
  }

  /** The start of every call the shim writes (its key order, `encodeCall` in js/webbridge.js). */
  var CALL_PREFIX = '{"v":1,"kind":"call","id":"';

  /**
   * The id of a call the shim wrote, read from the start of its body, or null for any other body
   * (a fire-and-forget call, a reply, a cancel, or what a page script made itself). The shim's
   * ids need no escape; one that would is not read.
   */
  function callID(body) {
    if (body.lastIndexOf(CALL_PREFIX, 0) !== 0) { return null; }
    var end = body.indexOf('"', CALL_PREFIX.length);
    if (end < 0 || end - CALL_PREFIX.length > 256) { return null; }
    var id = body.slice(CALL_PREFIX.length, end);
    return id.length > 0 && id.indexOf('\\') < 0 ? id : null;
  }

  /**
   * What the relay posts to learn that native has read its frame's earlier posts: native answers
   * it, with nothing, once it has read it, and it reads a frame's posts in order
   * (docs/protocol.md, "Relay: flow control").
   */
  var SYNC_BODY = '{"v":1,"kind":"sync"}';
  /** How long a frame holds its posts after native turned one away unread (its queue was full). */
  var BUSY_PAUSE_MS = 50;

  /**
   * What a posted text costs the app while native has not read it, in bytes of UTF-8 (the unit of
   * every BridgeKit limit): its length when it is known to be ASCII, else three bytes per UTF-16
   * code unit (the most one unit takes; a surrogate pair, two units, takes four). Only a large
   * body is looked at, once (`ascii`); a short one is counted at three bytes per unit, which
   * keeps the common post free of a scan.
   */
  function cost(text, ascii) {
    return ascii ? text.length : text.length * 3;
  }

  /**
   * The failed reply the relay writes itself for a call it does not post (docs/protocol.md,
   * "Relay"): the same shape as native's, `id` embedded as JSON data.
   */
  function refusal(id, code, message) {
    return JSON.stringify({ error: { code: code, message: message }, id: id, kind: 'reply', ok: false, v: 1 });
  }

  /**
   * Installs the relay on `opts.window` (the relay world's window) for `opts.channel`
   * (default "webbridge"); bodies of more than `opts.maxBodyUnits` bytes of UTF-8 (default: no
   * limit) are refused before they are posted (see `oversized`). Returns true when installed, false
   * when already installed or impossible.
   *
   * Flow control (docs/protocol.md, "Relay: flow control"): at most `opts.maxUnreadPosts` posts,
   * of at most `opts.maxUnreadBytes` bytes together (see `cost`), may be unread by native at once
   * (default: no limit; the host passes the smaller of its router's `maxPendingCalls` and 64, and
   * its `maxPayloadBytes`: `WebBridgeRelay.settingsScript(limits:)`).
   * WebKit copies every post into the app before native can look at it, so without this a page
   * script that dispatches posts without waiting (it need not use the shim) filled the app's
   * memory and held up every other web view (attack 18). A post is read once native answered it
   * or any later post (native reads one frame's posts in order and answers a call when it ends);
   * when a post does not fit, it waits here, in the page's own process, with every post after it,
   * and the relay posts a `sync`, which native answers as soon as it has read everything before
   * it. Nothing is dropped and nothing is refused for lack of room: a cancel or an answer to
   * native's call always gets through, and a long call holds nothing here once native read it
   * (the router bounds what it keeps: `maxPendingCalls`, `maxHeldBytes`; attack 19). A call native
   * turned away unread because the view's queue was full (a rejection whose message starts with
   * `bridgekit:busy`) is answered here with `memory_budget_exceeded`; any other post so turned
   * away (a cancel, an answer to native's call) is posted again, before the posts waiting, in the
   * order it was first posted. Either way the frame pauses its posts for `BUSY_PAUSE_MS`.
   */
  function createRelay(opts) {
    try {
      var win = opts && opts.window;
      var channel = opts && typeof opts.channel === 'string' && opts.channel ? opts.channel : 'webbridge';
      if (!win || typeof win.addEventListener !== 'function') { return false; }
      var installed = win[MARK + channel];
      if (installed) {
        // Evaluated again in the same window: WebKit runs document-start scripts again when
        // `document.open()` erased the window's listeners; add this relay's back, nothing else.
        if (typeof installed === 'function') { installed(); }
        return false;
      }
      var maxBodyUnits = opts && typeof opts.maxBodyUnits === 'number' && opts.maxBodyUnits > 0 ? opts.maxBodyUnits : 0;
      var limit = function (name) {
        var value = opts ? opts[name] : undefined;
        return typeof value === 'number' && value > 0 ? value : Infinity;
      };
      var maxUnreadPosts = limit('maxUnreadPosts');
      var maxUnreadBytes = limit('maxUnreadBytes');
      // Flow control (see above). Posts are numbered in the order they are posted; `unread` holds
      // the cost of each one from number `firstUnread` on (-1: known read), so that an answer to
      // post n marks every post up to n read.
      var nextNumber = 0;
      var firstUnread = 0;
      var unread = [];
      var unreadHead = 0;
      var unreadPosts = 0;
      var unreadBytes = 0;
      var waiting = [];              // posts that did not fit, in order: [message, cost, body] each
      var waitingHead = 0;
      var retrying = [];             // posts turned away busy, to go again before `waiting`: [number, message, cost, body], by number
      var syncing = false;           // a sync is awaiting native's answer
      var paused = false;            // native turned a post away unread: hold posts for a while

      var decoder = null;
      var Bytes = null;
      try {
        decoder = typeof win.TextDecoder === 'function' ? new win.TextDecoder() : null;
        Bytes = typeof Uint8Array === 'function' ? Uint8Array : null;  // a builtin of this world
      } catch (e) { decoder = null; Bytes = null; }
      // Read once, at install. The relay's world has its own globals and its own DOM wrappers and
      // prototypes, which page scripts cannot reach (they share only the document); capturing them
      // keeps the relay independent of later changes in its own world too.
      var CustomEventCtor = win.CustomEvent || (typeof CustomEvent === 'function' ? CustomEvent : null);
      var dispatchEventFn = win.dispatchEvent;
      // The document this relay serves. `win` is the frame's window proxy: once the frame shows
      // another document, it reaches that one, so an answer to this document's post would be
      // handed to the next document (attack 25: an iframe's reply reached its next document of the
      // same origin) and this document's waiting posts would leave from it. Nothing crosses once
      // the document is another; a window WebKit keeps for the next document (the initial
      // about:blank replaced) runs this script again, which binds the relay to it (`listen`).
      var ownDocument = null;
      try { ownDocument = win.document; } catch (e) { ownDocument = null; }
      var isOwnDocument = function () {
        try { return win.document === ownDocument; } catch (e) { return false; }
      };
      var dispatch = function (name, detail) {
        try {
          if (!isOwnDocument()) { return; }
          if (CustomEventCtor) { Reflect.apply(dispatchEventFn, win, [new CustomEventCtor(name, { detail: detail })]); }
        } catch (e) { /* never throw into the engine */ }
      };
      var initCustomEventFn = null;
      try {
        var customEventProto = CustomEventCtor && CustomEventCtor.prototype;
        if (customEventProto && typeof customEventProto.initCustomEvent === 'function') { initCustomEventFn = customEventProto.initCustomEvent; }
      } catch (e) { initCustomEventFn = null; }
      var messageType = channel + ':message';
      var replyEvent = null;         // the one CustomEvent every reply re-uses
      var replyEventBusy = false;    // true while it is being dispatched
      /**
       * Hands a native reply (a non-empty string) to the shim as `<channel>:message`. Like the
       * shim's posts, every reply re-uses one CustomEvent (`initCustomEvent`, dispatch, detail
       * emptied again), which spares WebKit a new event and its wrapper in both worlds per reply;
       * a reply while it is being dispatched, or without `initCustomEvent`, gets a new event. The
       * page may keep or re-dispatch that event: the relay re-initialises it before each use and
       * never reads it, so the page learns nothing it does not get anyway. Made once, with
       * `ignoreRejection`, so that a post allocates no functions.
       */
      var deliverReply = function (reply) {
        if (typeof reply !== 'string' || reply.length === 0 || !isOwnDocument()) { return; }
        if (!initCustomEventFn || replyEventBusy) {
          dispatch(messageType, reply);
          return;
        }
        replyEventBusy = true;
        try {
          if (replyEvent === null) {
            replyEvent = new CustomEventCtor(messageType, { detail: reply });
          } else {
            Reflect.apply(initCustomEventFn, replyEvent, [messageType, false, false, reply]);
          }
          Reflect.apply(dispatchEventFn, win, [replyEvent]);
        } catch (e) { /* never throw into the engine */ } finally {
          replyEventBusy = false;
          if (replyEvent !== null) {
            try { Reflect.apply(initCustomEventFn, replyEvent, [messageType, false, false, null]); } catch (e) { replyEvent = null; }
          }
        }
      };
      // A refusal is answered in a later task, as native's answer would be: a page that calls
      // again when a call fails then still yields between its calls.
      var later = typeof win.setTimeout === 'function' ? win.setTimeout : null;
      var resolved = Promise.resolve();
      /** Answers the call in `body`, if the shim wrote it, with a refusal, in a later task. */
      var refuse = function (body, code, message) {
        var id = callID(body);
        if (id === null) { return; }
        var reply = refusal(id, code, message);
        var answer = function () { deliverReply(reply); };
        try {
          if (later) { Reflect.apply(later, win, [answer, 0]); return; }
        } catch (e) { /* fall back to a microtask */ }
        resolved.then(answer);
      };
      var handler = function () {
        try {
          var mh = win.webkit && win.webkit.messageHandlers;
          var h = mh && mh[channel];
          return h && typeof h.postMessage === 'function' ? h : null;
        } catch (e) { return null; }
      };
      /** Marks every post up to number `n` read. */
      var markReadThrough = function (n) {
        while (firstUnread <= n && unreadHead < unread.length) {
          var c = unread[unreadHead];
          if (c >= 0) { unreadPosts -= 1; unreadBytes -= c; }
          unreadHead += 1;
          firstUnread += 1;
        }
        if (unreadHead === unread.length) { unread.length = 0; unreadHead = 0; }
      };
      /** Marks only post `n` read: native turned it away unread, and says nothing of the others. */
      var markRead = function (n) {
        var index = unreadHead + (n - firstUnread);
        if (n < firstUnread || index >= unread.length || unread[index] < 0) { return; }
        unreadPosts -= 1;
        unreadBytes -= unread[index];
        unread[index] = -1;
      };
      var fits = function (c) {
        return !paused && unreadPosts < maxUnreadPosts && (unreadPosts === 0 || unreadBytes + c <= maxUnreadBytes);
      };
      /** Whether native turned the post away unread because the view's queue was full (`bridgekit:busy`). */
      var isBusy = function (error) {
        var text = '';
        try { text = String(error && error.message !== undefined ? error.message : error); } catch (e) { text = ''; }
        return text.lastIndexOf('bridgekit:busy', 0) === 0;
      };
      /** Queues a post native turned away to go again, before the posts waiting, in the order it was first posted. */
      var postAgain = function (number, message, c, body) {
        var at = retrying.length;
        while (at > 0 && retrying[at - 1][0] > number) { at -= 1; }
        retrying.splice(at, 0, [number, message, c, body]);
      };
      var drain = null;
      /** Holds this frame's posts for `BUSY_PAUSE_MS`, then lets them go again. */
      var pause = function () {
        if (paused) { return; }
        paused = true;
        var resume = function () { paused = false; drain(); };
        try {
          if (later) { Reflect.apply(later, win, [resume, BUSY_PAUSE_MS]); return; }
        } catch (e) { /* fall back to a microtask */ }
        resolved.then(resume);
      };
      // A window's parent chain is fixed for its life: read once, not per post.
      var inSubframe = win.top !== win;
      /**
       * Posts `message` (what `envelope` or `oversized` made of `body`), which costs `c`, and
       * counts it unread until native answers it or a later post.
       */
      var send = function (h, message, c, body) {
        var result = h.postMessage(message);
        if (!result || typeof result.then !== 'function') { return; }
        var number = nextNumber;
        nextNumber += 1;
        unread.push(c);
        unreadPosts += 1;
        unreadBytes += c;
        var id = inSubframe ? callID(body) : null;
        if (id !== null) { openCalls.set(id, (openCalls.get(id) || 0) + 1); }
        result.then(function (reply) {
          if (id !== null) { closeCall(id); }
          markReadThrough(number);
          deliverReply(reply);
          drain();
        }, function (error) {
          if (id !== null) { closeCall(id); }
          if (isBusy(error)) {
            markRead(number);
            if (callID(body) !== null) {
              refuse(body, 'memory_budget_exceeded', 'The app is busy with this page\'s earlier messages.');
            } else {
              // Anything else (a cancel, an answer to native's call) goes again after the pause.
              postAgain(number, message, c, body);
            }
            pause();
          } else {
            markReadThrough(number);
          }
          drain();
        });
      };
      /**
       * A subframe's calls that native has not answered yet, by id (a count, for a page that reuses
       * one): native answers a call's post when the call ends. When the document goes away for
       * good (a trusted `pagehide` that is not persisted: the iframe removed, or navigated), the
       * relay cancels them, since nothing else tells native that a subframe's document ended
       * (attack 25: an allowed iframe's calls kept their tasks running, and an iframe that reloaded
       * with calls in flight filled `maxPendingCalls`). A main frame's calls end with its page
       * generation, when the next document commits.
       */
      var openCalls = new Map();
      /**
       * Whether this subframe's document ended for good (its trusted, non-persisted `pagehide`):
       * from then on the relay posts nothing for it, and answers a call made then (from the
       * page's own `pagehide` or `unload` listener, a timer) `navigated` itself (attack 26: calls
       * made after the relay's cancels kept their tasks running, as the ones before did). A second
       * evaluation in the window (a new document) ends it (`rebind`).
       */
      var ended = false;
      var closeCall = function (id) {
        var n = (openCalls.get(id) || 1) - 1;
        if (n > 0) { openCalls.set(id, n); } else { openCalls.delete(id); }
      };
      var onPageHide = function (event) {
        try {
          if (!inSubframe || !event || event.isTrusted !== true || event.persisted === true) { return; }
          if (!isOwnDocument()) { return; }
          ended = true;
          // What waits for room never leaves: the document is going. Its calls are answered.
          for (var i = waitingHead; i < waiting.length; i += 1) {
            if (waiting[i]) { refuse(waiting[i][2], 'navigated', 'The frame\'s document has ended.'); }
          }
          waiting.length = 0;
          waitingHead = 0;
          retrying.length = 0;
          if (openCalls.size === 0) { return; }
          var h = handler();
          if (!h) { return; }
          var origin = documentOrigin();
          var frame = frameName();
          // Posted at once, past the window: the document is going, and each is one small post
          // for a call native holds already.
          openCalls.forEach(function (count, id) {
            try { h.postMessage(envelope(origin, frame, '{"v":1,"kind":"cancel","id":"' + id + '"}')); } catch (e) { /* gone */ }
          });
          openCalls.clear();
        } catch (e) { /* never throw into the engine */ }
      };
      /** Posts a sync, unless one is awaiting its answer: its answer marks everything before it read. */
      var sync = function (h) {
        if (syncing) { return; }
        var result = null;
        try { result = h.postMessage(envelope(documentOrigin(), frameName(), SYNC_BODY)); } catch (e) { result = null; }
        if (!result || typeof result.then !== 'function') { return; }
        syncing = true;
        var number = nextNumber;
        nextNumber += 1;
        unread.push(-1);
        result.then(function () {
          syncing = false;
          markReadThrough(number);
          drain();
        }, function (error) {
          syncing = false;
          if (isBusy(error)) {
            markRead(number);
            pause();
          } else {
            markReadThrough(number);
          }
          drain();
        });
      };
      /** Posts the waiting posts that fit, in order; when one does not, asks native for a sync. */
      drain = function () {
        try {
          if (waitingHead === waiting.length && retrying.length === 0) { return; }
          if (!isOwnDocument()) {
            // This document is gone: what it left waiting never leaves (from its successor).
            waiting.length = 0;
            waitingHead = 0;
            retrying.length = 0;
            return;
          }
          var h = handler();
          if (!h) { return; }
          while (retrying.length > 0) {
            var again = retrying[0];
            if (!fits(again[2])) {
              if (!paused) { sync(h); }
              return;
            }
            retrying.shift();
            send(h, again[1], again[2], again[3]);
          }
          while (waitingHead < waiting.length) {
            var next = waiting[waitingHead];
            if (!fits(next[1])) {
              if (!paused) { sync(h); }
              return;
            }
            waiting[waitingHead] = undefined;
            waitingHead += 1;
            send(h, next[0], next[1], next[2]);
          }
          waiting.length = 0;
          waitingHead = 0;
        } catch (e) { /* never throw into the engine */ }
      };
      /**
       * The document's security origin (`self.origin`), not its URL's (`location.origin`): "null"
       * for an opaque origin (CSP sandbox, sandboxed iframe, data:), and the creator's origin for
       * documents that inherit it (srcdoc, about:blank). Without it: no origin.
       */
      var documentOrigin = function () {
        try { return typeof win.origin === 'string' ? win.origin : null; } catch (e) { return null; }
      };
      var frameName = function () { return win.top === win ? 'main' : 'sub'; };
      var onPost = function (event) {
        try {
          var body = event ? event.detail : null;
          if (ended) {
            if (typeof body === 'string') { refuse(body, 'navigated', 'The frame\'s document has ended.'); }
            return;
          }
          var h = handler();
          if (typeof body !== 'string' || !h) { return; }
          var origin = documentOrigin();
          // The body is never escaped into a second JSON text (docs/protocol.md, "Relay").
          var frame = frameName();
          // Over the native limit in UTF-8 bytes: only the head crosses. Narrowing writes more
          // characters (as ASCII escapes), so its result is checked again. A large body is looked
          // at once for a character beyond ASCII: without one it needs no narrowing, and its
          // length is its size in the app.
          var text = maxBodyUnits > 0 && overLimit(body, maxBodyUnits) ? null : body;
          var ascii = false;
          if (text !== null && text.length >= LARGE_BODY_UNITS) {
            ascii = !NON_ASCII.test(text);
            if (!ascii) {
              text = narrow(body, decoder, Bytes);
              ascii = text !== body;
            }
          }
          if (text !== null && maxBodyUnits > 0 && text !== body && text.length > maxBodyUnits) { text = null; }
          var message = text === null ? oversized(origin, frame, body) : envelope(origin, frame, text);
          var c = text === null ? cost(message[2], false) : cost(text, ascii);
          if (waitingHead < waiting.length || retrying.length > 0 || !fits(c)) {
            waiting.push([message, c, body]);
            drain();
            return;
          }
          send(h, message, c, body);
        } catch (e) { /* never throw into the engine */ }
      };

      var onHello = function () { dispatch(channel + ':ready', '1'); };
      var addEventListenerFn = win.addEventListener;
      // Adds the relay's listeners; again adds nothing (the same functions). `document.open()`
      // (also run by `document.write()` on a loaded document) erases the window's listeners
      // (HTML, "document open steps"); this runs again then, from a second evaluation of this
      // script or from the mutation observer below, whichever comes first.
      var listen = function () {
        try {
          if (!isOwnDocument()) { return; }
          Reflect.apply(addEventListenerFn, win, [channel + ':post', onPost]);
          // Capturing, and added at document start before any page script: it runs before the
          // page's own listeners, so none can stop it (`stopImmediatePropagation`; attack 26).
          Reflect.apply(addEventListenerFn, win, ['pagehide', onPageHide, true]);
          Reflect.apply(addEventListenerFn, win, [channel + ':hello', onHello]);
        } catch (e) { /* never throw into the engine */ }
      };
      // Run again by this script's second evaluation in the same window: for a document that
      // `document.open()` emptied (the same document), or the next document of a window WebKit
      // kept (the initial about:blank replaced), which the relay serves from then on. Not by the
      // mutation observer below: a script still holding an earlier document could otherwise make
      // it serve the frame's next one.
      var rebind = function () {
        try { ownDocument = win.document; } catch (e) { ownDocument = null; }
        ended = false;
        listen();
      };
      Object.defineProperty(win, MARK + channel, { value: rebind });
      listen();
      try {
        if (typeof win.MutationObserver === 'function' && win.document) {
          new win.MutationObserver(listen).observe(win.document, { childList: true });
        }
      } catch (e) { /* nothing to observe: nothing can erase the listeners either */ }
      dispatch(channel + ':ready', '1');
      return true;
    } catch (e) {
      return false;
    }
  }

  return { createRelay: createRelay };
});
