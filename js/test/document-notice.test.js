'use strict';
// js/webbridge-document.js: the document notice for hosts that cannot observe commits.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const { makeWindow: makeBridgeWindow, recordingHandler, evaluateIn } = require('../testing/fakes.js');

/** A window whose notice world has `handler` as webkit.messageHandlers.webbridgeDocument. */
function makeWindow(options = {}) {
  const base = options.target ? { target: options.target } : {};
  if (Object.prototype.hasOwnProperty.call(options, 'origin')) { base.origin = options.origin; }
  const win = makeBridgeWindow(base);
  if (options.handler) { win.webkit = { messageHandlers: { webbridgeDocument: options.handler } }; }
  return win;
}

const DOCUMENT_PATH = path.join(__dirname, '..', 'webbridge-document.js');
const { announceDocuments, DELIVER } = require(DOCUMENT_PATH);
const NOTICE_TEXT = /^\{"v":1,"kind":"document","document":"[0-9a-f]{32}"(,"origin":"https:\/\/app\.example")?\}$/;
const NOTICE_WITHOUT_ORIGIN = /^\{"v":1,"kind":"document","document":"[0-9a-f]{32}"\}$/;

test('posts one document notice when it installs, as the exact protocol text naming the document', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  assert.equal(announceDocuments({ window: win }), true);
  assert.equal(handler.texts.length, 1);
  assert.match(handler.texts[0], NOTICE_TEXT);
  const other = recordingHandler();
  announceDocuments({ window: makeWindow({ handler: other }) });
  assert.notEqual(JSON.parse(other.texts[0]).document, JSON.parse(handler.texts[0]).document, 'each document its own id');
});

// The notice tells native the document's security origin (`self.origin`, read in the notice's
// world at document start), so native can hand an event's bytes to that origin only; an opaque
// origin ("null") is no origin, and the origin is JSON text, never pasted into quotes.
test('the notice carries the document\'s security origin as JSON, and none when it is opaque', () => {
  const post = (origin) => {
    const handler = recordingHandler();
    announceDocuments({ window: makeWindow({ handler, origin }) });
    assert.equal(handler.texts.length, 1);
    return handler.texts[0];
  };
  const plain = post('https://app.example:8443');
  assert.match(plain, /^\{"v":1,"kind":"document","document":"[0-9a-f]{32}","origin":"https:\/\/app\.example:8443"\}$/);
  assert.match(post('null'), NOTICE_WITHOUT_ORIGIN, 'an opaque origin is no origin');
  assert.match(post(undefined), NOTICE_WITHOUT_ORIGIN, 'no origin to read');
  assert.match(post(42), NOTICE_WITHOUT_ORIGIN, 'not a string');
  const odd = post('https://a"b\\c\u2028');
  assert.equal(JSON.parse(odd).origin, 'https://a"b\\c\u2028', 'written as JSON, not pasted into quotes');
});

// Kind of fault: a script on its way when another document commits. Native evaluated progress,
// events and native-to-page calls in whatever document was on screen when they arrived: the next
// document (any origin, one a third-party frame navigated the top to) read them. The delivery
// function of the notice's world hands a message to the page only when it names this document.
test('__webbridgeDeliver hands a message to the page only when it names this document', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  announceDocuments({ window: win });
  const id = JSON.parse(handler.texts[0]).document;
  const got = [];
  win.addEventListener('webbridge:message', (event) => got.push(event.detail));
  const deliver = win[DELIVER];
  assert.equal(typeof deliver, 'function');
  deliver('0'.repeat(32), { v: 1, kind: 'event', name: 'secret', data: 1 });
  deliver(undefined, { v: 1, kind: 'event', name: 'secret', data: 2 });
  assert.deepEqual(got, [], 'another document\'s message reaches nobody');
  deliver(id, { v: 1, kind: 'progress', id: 'p-1', data: { s: '</script>\u2028' } });
  assert.deepEqual(got.map((t) => JSON.parse(t)), [{ v: 1, kind: 'progress', id: 'p-1', data: { s: '</script>\u2028' } }]);
  assert.equal(typeof got[0], 'string', 'only strings cross between worlds');
  assert.throws(() => { 'use strict'; win[DELIVER] = () => {}; }, TypeError, 'not replaceable in its world');
  assert.doesNotThrow(() => deliver(id, { toJSON() { throw new Error('x'); } }));
});

/** An event target that hands any object to its listeners, so a test can deliver what only the
 *  browser makes: an event whose `isTrusted` is true. */
function listenerTarget() {
  const listeners = [];
  return {
    addEventListener(type, fn) { listeners.push([type, fn]); },
    removeEventListener() {},
    dispatchEvent(event) { for (const [type, fn] of listeners) { if (type === event.type) { fn(event); } } return true; },
  };
}

test('a back-forward cache restore (pageshow, persisted) posts it again; an ordinary pageshow does not', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler, target: listenerTarget() });
  announceDocuments({ window: win });
  const show = (persisted) => win.dispatchEvent({ type: 'pageshow', persisted, isTrusted: true });
  show(false);
  assert.equal(handler.texts.length, 1);
  show(true);
  assert.equal(handler.texts.length, 2);
  assert.equal(handler.texts[1], handler.texts[0], 'a restored document is the same document: the same id');
});

// Kind of fault: a made-up event reaching the notice's world. A page (or a same-origin frame)
// dispatching `new PageTransitionEvent('pageshow', {persisted: true})` reached the isolated world's
// listener, which posted a real notice: native started a new page generation and ended every
// pending call of a document that was still there.
test('a pageshow the page made up (not trusted) posts nothing, persisted or not', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler, target: listenerTarget() });
  announceDocuments({ window: win });
  win.dispatchEvent({ type: 'pageshow', persisted: true, isTrusted: false });
  win.dispatchEvent({ type: 'pageshow', persisted: true });
  const made = new Event('pageshow');
  Object.defineProperty(made, 'persisted', { value: true });
  const real = makeWindow({ handler, target: new EventTarget() });
  announceDocuments({ window: real });
  real.dispatchEvent(made);
  assert.equal(handler.texts.length, 2, 'the two installs only');
});

test('the page replacing webkit.messageHandlers later does not redirect the notice', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  announceDocuments({ window: win });
  const forged = recordingHandler();
  win.webkit = { messageHandlers: { webbridgeDocument: forged } };
  handler.postMessage = () => { throw new Error('replaced'); };
  const e = new Event('pageshow');
  e.persisted = true;
  assert.doesNotThrow(() => win.dispatchEvent(e));
  assert.equal(forged.texts.length, 0);
});

test('without a handler, or with one that throws, it installs nothing and never throws', () => {
  assert.equal(announceDocuments({ window: makeWindow() }), false);
  assert.equal(announceDocuments({}), false);
  const throwing = { postMessage() { throw new Error('gone'); } };
  assert.doesNotThrow(() => announceDocuments({ window: makeWindow({ handler: throwing }) }));
});

test('as a classic script it announces the document at once', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  evaluateIn(win, fs.readFileSync(DOCUMENT_PATH, 'utf8'));
  assert.equal(handler.texts.length, 1);
  assert.match(handler.texts[0], NOTICE_TEXT);
});

test("it never posts to the bridge's own channel, where a page could forge the notice", () => {
  const bridge = recordingHandler();
  const win = makeBridgeWindow({ handler: bridge });
  assert.equal(announceDocuments({ window: win }), false);
  assert.equal(bridge.texts.length, 0);
});

// Kind of fault: a restore announced after the page's own code ran again. The notice went at
// `pageshow`, after `visibilitychange` to visible, whose listeners may call native: such a call
// reached native in the generation of the document before (with the `WKWebView` adapter, which
// learns of restores only from the notice), was ended `navigated` there, and the shim, which keeps
// calls made during the restore, waited for it forever. The notice now goes when the restore begins.
test('a restore is announced when the page becomes visible again, before its listeners run; not again at pageshow', () => {
  const handler = recordingHandler();
  const target = listenerTarget();
  const win = makeWindow({ handler, target });
  win.document = { visibilityState: 'visible' };
  announceDocuments({ window: win });
  const seen = [];
  win.addEventListener('visibilitychange', () => seen.push('page listener, notices: ' + handler.texts.length));
  const fire = (type, fields) => win.dispatchEvent({ type, isTrusted: true, ...fields });
  fire('pagehide', { persisted: true });
  win.document.visibilityState = 'hidden';
  fire('visibilitychange');
  assert.equal(handler.texts.length, 1, 'hidden: nothing');
  win.document.visibilityState = 'visible';
  fire('visibilitychange');
  assert.equal(handler.texts.length, 2, 'announced as the restore begins');
  assert.deepEqual(seen.slice(-1), ['page listener, notices: 2'], 'before the page\'s own listener');
  fire('pageshow', { persisted: true });
  assert.equal(handler.texts.length, 2, 'not again at pageshow');
  // A restore without a visibility change (a view that was not visible) is announced at pageshow.
  fire('pagehide', { persisted: true });
  fire('pageshow', { persisted: true });
  assert.equal(handler.texts.length, 3);
  // A visibility change without a persisted pagehide (a tab switch) announces nothing.
  win.document.visibilityState = 'hidden';
  fire('visibilitychange');
  win.document.visibilityState = 'visible';
  fire('visibilitychange');
  assert.equal(handler.texts.length, 3);
});
