'use strict';
// document.open(), also run by document.write() on a loaded document, erases the page world's
// listeners on the window (HTML, "document open steps"), in every script world. The shim and the
// relay must add their listeners back, or every reply that comes through the relay after that is
// lost, every later call is never posted, and the calls never settle.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, loadRelay, makeWorlds, relayHandler, settleMicrotasks } = require('../testing/fakes.js');

const { install } = loadShim();
const { createRelay } = loadRelay();

/** Erases every listener on `target` that was added through `win` (as document.open does). */
function eraseListenersOf(win, target) {
  const added = [];
  const add = win.addEventListener;
  win.addEventListener = function (type, fn, opts) {
    if (!added.some(([t, f]) => t === type && f === fn)) { added.push([type, fn]); }
    return add.call(this, type, fn, opts);
  };
  const erase = () => { for (const [type, fn] of added.splice(0)) { target.removeEventListener(type, fn); } };
  erase.added = added;
  return erase;
}

/**
 * Makes `page` behave like a page-world window whose document can be opened: records its
 * listeners, gives it a MutationObserver, and returns `open()`, which erases every recorded
 * listener and tells the observers that the document's children changed (as document.open does).
 */
function openableDocument(page, target) {
  const erase = eraseListenersOf(page, target);
  const observers = [];
  page.MutationObserver = class {
    constructor(callback) { this.callback = callback; }
    observe(node, options) {
      assert.equal(node, page.document, 'observes the document');
      assert.equal(options.childList, true, 'its children: document.open() replaces them');
      observers.push(this);
    }
  };
  return {
    open() {
      erase();
      for (const observer of observers) { observer.callback([{ type: 'childList' }], observer); }
    },
    listeners: () => erase.added.map(([type]) => type),
  };
}

function echoHandler(delay) {
  let release = () => {};
  const gate = delay ? new Promise((resolve) => { release = resolve; }) : Promise.resolve();
  const handler = relayHandler((envelope) => {
    const m = JSON.parse(envelope[2]);
    return gate.then(() => JSON.stringify({ v: 1, kind: 'reply', id: m.id, ok: true, data: m.options }));
  });
  return { handler, release: () => release() };
}

test('document.open(): a call in flight and a call made afterwards both settle through the relay', async () => {
  const { handler, release } = echoHandler(true);
  const { page, relay, target } = makeWorlds({ handler });
  const doc = openableDocument(page, target);
  createRelay({ window: relay });
  const bridge = install(page);
  const inFlight = bridge.call('echo', { n: 1 });
  doc.open();
  const after = bridge.call('echo', { n: 2 });
  release();
  await settleMicrotasks(20);
  assert.equal(bridge.pendingCount(), 0, 'no call left waiting');
  assert.deepEqual(await inFlight, { n: 1 });
  assert.deepEqual(await after, { n: 2 });
});

test('document.open(): the window listeners are back, each once, the history one included', () => {
  const { page, relay, target } = makeWorlds({ handler: relayHandler() });
  const doc = openableDocument(page, target);
  createRelay({ window: relay });
  install(page);
  const before = doc.listeners().sort();
  assert.ok(before.includes('webbridge:message') && before.includes('popstate') && before.includes('pageshow'));
  for (let round = 0; round < 3; round++) {
    doc.open();
    assert.deepEqual(doc.listeners().sort(), before, 'after document.open() number ' + (round + 1));
  }
});

test('document.open(): a popstate after it still sends its History notice', async () => {
  const { handler } = echoHandler(false);
  const { page, relay, target } = makeWorlds({ handler });
  const doc = openableDocument(page, target);
  createRelay({ window: relay });
  install(page);
  doc.open();
  page.history.pushState(null, '', '/a');
  page.history.back();
  page.clock.tick(1);
  await settleMicrotasks(10);
  const notices = handler.messages.map((envelope) => JSON.parse(envelope[2])).filter((m) => m.task === 'History');
  assert.deepEqual(notices.map((m) => m.options.type), ['pushState', 'popstate']);
});

test('a page that replaces window.addEventListener or MutationObserver later changes nothing (captured at install)', async () => {
  const { handler, release } = echoHandler(true);
  const { page, relay, target } = makeWorlds({ handler });
  const doc = openableDocument(page, target);
  createRelay({ window: relay });
  const bridge = install(page);
  page.addEventListener = () => { throw new Error('hostile'); };
  page.MutationObserver = function () { throw new Error('hostile'); };
  const inFlight = bridge.call('echo', { n: 3 });
  doc.open();
  release();
  await settleMicrotasks(20);
  assert.deepEqual(await inFlight, { n: 3 });
});

// WebKit also evaluates document-start scripts again when `document.open()` runs (checked with
// WebKitGTK 2.50: an isolated-world script's window listeners are erased and the script runs
// again in the same window). Each script then adds its own listeners back and does nothing else.

test('relay evaluated again after document.open() erased its listeners: posts reach native again, once each', () => {
  const { relaySource, evaluateIn } = require('../testing/fakes.js');
  const { page, relay, handler, target } = makeWorlds();
  const erase = eraseListenersOf(relay, target);
  const ctx = evaluateIn(relay, relaySource());
  const bridge = install(page);
  bridge.call('a', 1, () => {});
  assert.equal(handler.texts.length, 1);
  erase();
  bridge.call('lost', 2, () => {});
  assert.equal(handler.texts.length, 1, 'with its listeners erased the relay hears nothing');
  evaluateIn(relay, relaySource(), ctx);
  bridge.call('b', 3, () => {});
  assert.equal(handler.texts.length, 2, 'after the second evaluation: exactly one post per call');
});

test('document notice evaluated again in the same document: no second notice, its pageshow listener back', () => {
  const path = require('node:path');
  const fs = require('node:fs');
  const { makeWindow, recordingHandler, evaluateIn } = require('../testing/fakes.js');
  const source = fs.readFileSync(path.join(__dirname, '..', 'webbridge-document.js'), 'utf8');
  const handler = recordingHandler();
  const win = makeWindow({});
  win.webkit = { messageHandlers: { webbridgeDocument: handler } };
  const erase = eraseListenersOf(win, win.eventTarget);
  const ctx = evaluateIn(win, source);
  assert.equal(handler.texts.length, 1);
  erase();
  evaluateIn(win, source, ctx);
  assert.equal(handler.texts.length, 1, 'document.open() keeps the document: no new page generation');
  // A real restore's event is trusted, which no script can make: handed to the listener that is back.
  const listeners = erase.added.filter(([type]) => type === 'pageshow');
  assert.equal(listeners.length, 1, 'its pageshow listener is back');
  listeners[0][1]({ type: 'pageshow', persisted: true, isTrusted: true });
  assert.equal(handler.texts.length, 2, 'a back-forward restore is announced again, once');
});
