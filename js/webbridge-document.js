/*
 * BridgeKit document notice (protocol v1, docs/protocol.md, "Document notice"): tells native
 * which document is on screen. Injected at document start in the main frame, in a script world
 * page scripts cannot reach, it makes a random id for the document (128 bits) and posts
 * {"v":1,"kind":"document","document":"<id>","origin":"<self.origin>"} (no origin when opaque)
 * to that world's "webbridgeDocument" handler (never
 * to the bridge's channel, where a page could forge it) once when the document starts and again
 * when the back-forward cache restores it (the same id: the same document). Native starts a new
 * page generation when another document announces itself.
 *
 * It also defines, in its own world only, `__webbridgeDeliver(id, message)`: native evaluates it
 * there to hand a message to the page's shim (as a "webbridge:message" event, JSON text) only when
 * `id` is this document's, so a script on its way when another document commits reaches nobody.
 * Never throws. ES2017, no build step; `announceDocuments({window})` for tests.
 */
(function (factory) {
  'use strict';
  var api = factory();
  if (typeof module === 'object' && module && module.exports) {
    module.exports.announceDocuments = api.announceDocuments;
    module.exports.DELIVER = api.DELIVER;
  }
  if (typeof window !== 'undefined' && window && typeof window.addEventListener === 'function') {
    api.announceDocuments({ window: window });
  }
})(function () {
  'use strict';

  var MARK = '__webbridgeDocument:';
  /** The name of the delivery function in the notice's world (``PageFunction`` in Swift calls it). */
  var DELIVER = '__webbridgeDeliver';

  /**
   * The notice for the document `id` of security origin `origin` (`self.origin`, read in this
   * world at document start): its `origin` member only when that is a string other than "null".
   */
  function notice(id, origin) {
    var text = '{"v":1,"kind":"document","document":"' + id + '"';
    if (typeof origin === 'string' && origin !== 'null') { text += ',"origin":' + JSON.stringify(origin); }
    return text + '}';
  }

  /** The document's security origin (`self.origin`: "null" when opaque), or null when unreadable. */
  function documentOrigin(win) {
    try { return typeof win.origin === 'string' ? win.origin : null; } catch (e) { return null; }
  }

  /** 128 random bits as 32 lowercase hexadecimal digits, or null without `crypto.getRandomValues`. */
  function randomID(win) {
    try {
      var source = win.crypto || (typeof crypto === 'object' ? crypto : null);
      var bytes = new Uint8Array(16);
      source.getRandomValues(bytes);
      var out = '';
      for (var i = 0; i < 16; i++) { out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16); }
      return out;
    } catch (e) { return null; }
  }

  /**
   * Defines `__webbridgeDeliver(id, message)` on `win` (this world's global, not writable): when
   * `id` is this document's, dispatches `messageEvent` with the message's JSON text as its detail
   * (only strings cross between worlds), which the shim takes as it takes the relay's replies.
   */
  function defineDelivery(win, id, messageEvent) {
    var stringify = JSON.stringify;
    var CustomEventCtor = win.CustomEvent || (typeof CustomEvent === 'function' ? CustomEvent : null);
    var dispatchEventFn = win.dispatchEvent;
    var deliver = function (target, message) {
      try {
        if (target !== id || !CustomEventCtor) { return; }
        var text = stringify(message);
        if (typeof text !== 'string') { return; }
        Reflect.apply(dispatchEventFn, win, [new CustomEventCtor(messageEvent, { detail: text })]);
      } catch (e) { /* never throw into the engine */ }
    };
    Object.defineProperty(win, DELIVER, { value: deliver });
  }

  /**
   * Posts the notice on `opts.window` to the handler `opts.channel` (default "webbridgeDocument") now and
   * on every trusted `pageshow` whose `persisted` is true, and defines the delivery function for
   * `opts.messageEvent` (default "webbridge:message"). Returns whether it was installed.
   */
  function announceDocuments(opts) {
    try {
      var win = opts && opts.window;
      var channel = opts && typeof opts.channel === 'string' && opts.channel ? opts.channel : 'webbridgeDocument';
      var messageEvent = opts && typeof opts.messageEvent === 'string' && opts.messageEvent ? opts.messageEvent : 'webbridge:message';
      if (!win || typeof win.addEventListener !== 'function') { return false; }
      var installed = win[MARK + channel];
      if (installed) {
        // Evaluated again in the same document: WebKit runs document-start scripts again when
        // `document.open()` erased the window's listeners. The document did not change (no
        // notice, its calls stay); only the `pageshow` listener is added back.
        if (typeof installed === 'function') { installed(); }
        return false;
      }
      // Read now, at document start, before any page script could replace what it reads.
      var mh = win.webkit && win.webkit.messageHandlers;
      var handler = mh && mh[channel];
      if (!handler || typeof handler.postMessage !== 'function') { return false; }
      var post = handler.postMessage;
      var id = randomID(win);
      if (id === null) { return false; }
      var text = notice(id, documentOrigin(win));
      var announce = function () {
        try { Reflect.apply(post, handler, [text]); } catch (e) { /* never throw into the engine */ }
      };
      // A back-forward restore is announced when it begins, before the page's own code runs
      // again: at the first `visibilitychange` to visible after the document left the page for the
      // cache (its `pagehide`, persisted), else at its `pageshow` (persisted), from capturing
      // listeners added before any page script's. A call the page makes as it becomes visible
      // again then reaches native after the notice, in the restored document's generation, where
      // native answers it (and the shim keeps it: js/webbridge.js ends only older calls).
      // Only the browser's own events: a page (or a same-origin frame) can dispatch a made-up
      // `pageshow` with `persisted: true` that reaches this world's listeners too, and would end
      // the calls of a document that is still there. `isTrusted` is unforgeable.
      var left = false;        // the document went into the cache (a trusted pagehide, persisted)
      var announced = false;   // this restore was announced (at visibilitychange)
      var trusted = function (event) { return !!event && event.isTrusted === true; };
      var onPageHide = function (event) {
        if (trusted(event) && event.persisted === true) { left = true; announced = false; }
      };
      var onVisibilityChange = function (event) {
        if (!left || !trusted(event)) { return; }
        var visible = false;
        try { visible = win.document.visibilityState === 'visible'; } catch (e) { visible = false; }
        if (visible) { left = false; announced = true; announce(); }
      };
      var onPageShow = function (event) {
        if (!trusted(event) || event.persisted !== true) { return; }
        if (!announced) { announce(); }
        left = false;
        announced = false;
      };
      var addEventListenerFn = win.addEventListener;
      var listen = function () {
        try {
          Reflect.apply(addEventListenerFn, win, ['pagehide', onPageHide, true]);
          Reflect.apply(addEventListenerFn, win, ['visibilitychange', onVisibilityChange, true]);
          Reflect.apply(addEventListenerFn, win, ['pageshow', onPageShow, true]);
        } catch (e) { /* never throw */ }
      };
      Object.defineProperty(win, MARK + channel, { value: listen });
      defineDelivery(win, id, messageEvent);
      announce();
      listen();
      // `document.open()` erases the window's listeners in every world; WebKit runs this script
      // again only when a new document element follows (`document.write()`, `close()`). A page
      // that rebuilds itself with DOM calls keeps it erased: the observer adds it back (observers,
      // unlike event listeners, survive `document.open()`), so a back-forward restore still
      // announces the document.
      try {
        if (typeof win.MutationObserver === 'function' && win.document) {
          new win.MutationObserver(listen).observe(win.document, { childList: true });
        }
      } catch (e) { /* nothing to observe: nothing can erase the listener either */ }
      return true;
    } catch (e) {
      return false;
    }
  }

  return { announceDocuments: announceDocuments, DELIVER: DELIVER };
});
