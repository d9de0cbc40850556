/*
 * BridgeKit document notice (protocol v1, docs/protocol.md, "Document notice"): for hosts that
 * cannot observe when WebKit commits a navigation (a WKWebView observed by KVO only). Injected at
 * document start in the main frame, in a script world of its own that page scripts cannot reach,
 * it posts {"v":1,"kind":"document"} to that world's "webbridgeDocument" handler (never to the
 * bridge's channel, where a page could forge it) once when the document starts and again when the
 * back-forward cache restores it, so native starts a new page generation exactly when a new
 * document replaced the old one. Defines nothing, never throws. ES2017, no build step;
 * `announceDocuments({window})` for tests.
 */
(function (factory) {
  'use strict';
  var api = factory();
  if (typeof module === 'object' && module && module.exports) {
    module.exports.announceDocuments = api.announceDocuments;
    module.exports.NOTICE = api.NOTICE;
  }
  if (typeof window !== 'undefined' && window && typeof window.addEventListener === 'function') {
    api.announceDocuments({ window: window });
  }
})(function () {
  'use strict';

  var NOTICE = '{"v":1,"kind":"document"}';
  var MARK = '__webbridgeDocument:';

  /**
   * Posts the notice on `opts.window` to the handler `opts.channel` (default "webbridgeDocument") now and
   * on every trusted `pageshow` whose `persisted` is true. Returns whether it was installed.
   */
  function announceDocuments(opts) {
    try {
      var win = opts && opts.window;
      var channel = opts && typeof opts.channel === 'string' && opts.channel ? opts.channel : 'webbridgeDocument';
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
      var announce = function () {
        try { post.call(handler, NOTICE); } catch (e) { /* never throw into the engine */ }
      };
      var onPageShow = function (event) {
        // Only the browser's own event: a page (or a same-origin frame) can dispatch a made-up
        // `pageshow` with `persisted: true` that reaches this world's listeners too, and would end
        // the calls of a document that is still there. `isTrusted` is unforgeable.
        if (event && event.isTrusted === true && event.persisted === true) { announce(); }
      };
      var addEventListenerFn = win.addEventListener;
      var listen = function () {
        try { Reflect.apply(addEventListenerFn, win, ['pageshow', onPageShow]); } catch (e) { /* never throw */ }
      };
      Object.defineProperty(win, MARK + channel, { value: listen });
      announce();
      listen();
      return true;
    } catch (e) {
      return false;
    }
  }

  return { announceDocuments: announceDocuments, NOTICE: NOTICE };
});
