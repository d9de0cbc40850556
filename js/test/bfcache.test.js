'use strict';
// Kind of fault: a call that never settles because the page was frozen in the back-forward cache
// while native answered `navigated` to nobody.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWebBridge } = require('../webbridge.js');

function fakeWindow() {
  const target = new EventTarget();
  return {
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatchEvent: target.dispatchEvent.bind(target),
    document: { readyState: 'complete' },
    location: { href: 'https://app.example/' },
  };
}

/** A `pageshow` as the browser makes it (`isTrusted` true), or, with `trusted: false`, as a page
 *  script makes it with `new PageTransitionEvent('pageshow', { persisted: true })`. */
function pageshow(persisted, { trusted = true } = {}) {
  const event = new Event('pageshow');
  Object.defineProperty(event, 'persisted', { value: persisted });
  Object.defineProperty(event, 'isTrusted', { value: trusted });
  return event;
}

test('a page restored from the back-forward cache settles its pending calls with navigated', async () => {
  const win = fakeWindow();
  const posted = [];
  const bridge = createWebBridge({ window: win, transport: { post(text) { posted.push(JSON.parse(text)); } }, history: false });
  const call = bridge.call('slow', {});
  assert.equal(bridge.pendingCount(), 1);
  win.dispatchEvent(pageshow(false));
  assert.equal(bridge.pendingCount(), 1, 'an ordinary pageshow changes nothing');
  win.dispatchEvent(pageshow(true));
  await assert.rejects(call, (error) => error.code === 'navigated');
  assert.equal(bridge.pendingCount(), 0);
  bridge._receive({ v: 1, kind: 'reply', id: posted[0].id, ok: true, data: 1 });
  assert.equal(bridge.pendingCount(), 0, 'a late reply for the old call is ignored');
});

// Kind of fault: native gave up on its calls to the page when the page left (navigated), but a
// handler still running when the page is restored from the back-forward cache was never told:
// its signal stayed unaborted and its late answer was posted to native, which dropped it.
test('a page restored from the back-forward cache aborts the handlers native called and sends them no reply', async () => {
  const win = fakeWindow();
  const posted = [];
  const bridge = createWebBridge({ window: win, transport: { post(text) { posted.push(JSON.parse(text)); } }, history: false });
  let signal = null;
  let finish = null;
  bridge.handle('Wait', (options, context) => { signal = context.signal; return new Promise((resolve) => { finish = resolve; }); });
  bridge._receive({ v: 1, kind: 'call', id: 'n-1', task: 'Wait', options: null });
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(signal && signal.aborted === false);
  win.dispatchEvent(pageshow(true));
  assert.equal(signal.aborted, true, 'the handler learns that native gave up');
  finish('late');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(posted.filter((m) => m.kind === 'reply'), [], 'no reply for a call native settled navigated');
  bridge._receive({ v: 1, kind: 'call', id: 'n-1', task: 'Wait', options: null });
  await new Promise((resolve) => setImmediate(resolve));
  finish('again');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(posted.filter((m) => m.kind === 'reply').length, 1, 'a new call of the restored page is answered');
});

// Kind of fault: a page-made event acting as the browser's. A script (the page's, or a same-origin
// frame's) dispatching `pageshow` with persisted: true ended the calls of a document that was still
// there, and aborted the handlers native was waiting on, whose answers were then never sent.
test('a page-made pageshow (untrusted) settles no call and aborts no handler', async () => {
  const win = fakeWindow();
  const posted = [];
  const bridge = createWebBridge({ window: win, transport: { post(text) { posted.push(JSON.parse(text)); } }, history: false });
  const call = bridge.call('slow', {});
  let signal = null;
  let finish = null;
  bridge.handle('Wait', (options, context) => { signal = context.signal; return new Promise((resolve) => { finish = resolve; }); });
  bridge._receive({ v: 1, kind: 'call', id: 'n-1', task: 'Wait', options: null });
  await new Promise((resolve) => setImmediate(resolve));
  win.dispatchEvent(pageshow(true, { trusted: false }));
  assert.equal(bridge.pendingCount(), 1, 'the page\'s call is still pending');
  assert.equal(signal.aborted, false, 'the handler native called is not aborted');
  finish('answer');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(posted.filter((m) => m.kind === 'reply').map((m) => m.data), ['answer']);
  bridge._receive({ v: 1, kind: 'reply', id: posted[0].id, ok: true, data: 7 });
  assert.equal(await call, 7);
});

/** A trusted event of `type` (`pagehide`, `visibilitychange`) as the browser makes it. */
function trusted(type, fields = {}) {
  const event = new Event(type);
  Object.defineProperty(event, 'isTrusted', { value: true });
  for (const [key, value] of Object.entries(fields)) { Object.defineProperty(event, key, { value }); }
  return event;
}

// Kind of fault: a document that is still there losing its calls. On a restore the page's own
// code runs before the bridge's pageshow listener (`visibilitychange` to visible fires first, and
// a capturing pageshow listener runs before a bubbling one): a call it made then was settled
// `navigated` with the calls native had given up on while the page was in the cache, though native
// answers it (a task with a side effect ran, and the page was told it did not).
test('a restore settles only the calls made before it began: calls made as the page becomes visible again stay', async () => {
  const win = fakeWindow();
  const doc = { readyState: 'complete', visibilityState: 'visible' };
  win.document = doc;
  const posted = [];
  const bridge = createWebBridge({ window: win, transport: { post(text) { posted.push(JSON.parse(text)); } }, history: false });
  const before = bridge.call('before', {});
  win.dispatchEvent(trusted('pagehide', { persisted: true }));
  const inPagehide = bridge.call('inPagehide', {});
  doc.visibilityState = 'hidden';
  win.dispatchEvent(trusted('visibilitychange'));
  // The restore: visible again, then (page listeners run) pageshow.
  doc.visibilityState = 'visible';
  win.dispatchEvent(trusted('visibilitychange'));
  const onVisible = bridge.call('onVisible', {});
  let inCapture = null;
  win.addEventListener('pageshow', () => { inCapture = bridge.call('inCapture', {}); }, true);
  win.dispatchEvent(pageshow(true));
  await assert.rejects(before, (error) => error.code === 'navigated');
  await assert.rejects(inPagehide, (error) => error.code === 'navigated');
  assert.equal(bridge.pendingCount(), 2, 'the calls made as the restore began are still pending');
  const id = (task) => posted.find((m) => m.task === task).id;
  bridge._receive({ v: 1, kind: 'reply', id: id('onVisible'), ok: true, data: 'v' });
  assert.equal(await onVisible, 'v');
  assert.ok(inCapture);
  bridge._receive({ v: 1, kind: 'reply', id: posted.filter((m) => m.task === 'inCapture').pop().id, ok: true, data: 'c' });
  assert.equal(await inCapture, 'c');
});
