'use strict';
// Attack (e015d61): document.open() erases the window's listeners in every world, the notice
// world's `pageshow` listener included. WebKit evaluates the document-start scripts again only
// when the parser makes the new document element (document.write, document.close); a page that
// rebuilds itself with DOM calls after document.open() never gets them back. The shim and the
// relay add theirs back from a MutationObserver; the notice does not, so a back-forward restore of
// that document posts no notice and native never binds its scripts to it again.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { makeWindow: makeBridgeWindow, recordingHandler } = require('../testing/fakes.js');

const { announceDocuments } = require(path.join(__dirname, '..', 'webbridge-document.js'));

/** A notice-world window whose listeners document.open() can erase; it has a MutationObserver. */
function openableNoticeWindow(handler) {
  const listeners = [];
  const observers = [];
  const target = {
    addEventListener(type, fn) { if (!listeners.some(([t, f]) => t === type && f === fn)) { listeners.push([type, fn]); } },
    removeEventListener(type, fn) {
      const i = listeners.findIndex(([t, f]) => t === type && f === fn);
      if (i >= 0) { listeners.splice(i, 1); }
    },
    dispatchEvent(event) { for (const [type, fn] of listeners.slice()) { if (type === event.type) { fn(event); } } return true; },
  };
  const win = makeBridgeWindow({ target });
  win.webkit = { messageHandlers: { webbridgeDocument: handler } };
  win.MutationObserver = class {
    constructor(callback) { this.callback = callback; }
    observe() { observers.push(this); }
  };
  return {
    win,
    /** document.open() without a new document element: listeners erased, observers told, no re-evaluation. */
    open() {
      listeners.splice(0);
      for (const observer of observers) { observer.callback([{ type: 'childList' }], observer); }
    },
    restore() { win.dispatchEvent({ type: 'pageshow', persisted: true, isTrusted: true }); },
  };
}

test('after document.open() (no new document element), a back-forward restore still posts the notice', () => {
  const handler = recordingHandler();
  const w = openableNoticeWindow(handler);
  announceDocuments({ window: w.win });
  assert.equal(handler.texts.length, 1);
  w.restore();
  assert.equal(handler.texts.length, 2, 'a restore before document.open() posts it');
  w.open();
  w.restore();
  assert.equal(handler.texts.length, 3, 'a restore after document.open() posts no notice: native keeps the document unnamed');
});
