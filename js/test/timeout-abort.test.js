'use strict';
// Per-call timeout and AbortSignal: each settles the call once and tells native with a cancel.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

function setup(windowOptions) {
  const win = makeWindow(windowOptions);
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { win, transport, bridge, clock: win.clock };
}

test('timeout settles "timeout" once, posts a cancel for the same id and ignores a late reply', async () => {
  const { bridge, transport, clock } = setup();
  const seen = [];
  bridge.call('slow', {}, { timeout: 500, callback: (r) => seen.push(r) });
  const id = transport.messages[0].id;
  clock.tick(499);
  assert.deepEqual(seen, []);
  clock.tick(1);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].ok, false);
  assert.equal(seen[0].error.code, 'timeout');
  assert.deepEqual(seen[0].error.details, { timeout: 500 });
  assert.deepEqual(transport.messages[1], { v: 1, kind: 'cancel', id, reason: 'timeout' });
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'late' });
  assert.equal(seen.length, 1);
  assert.equal(bridge.pendingCount(), 0);
});

test('timeout with the promise form rejects with code timeout', async () => {
  const { bridge, clock } = setup();
  const p = bridge.call('slow', null, { timeout: 10 });
  clock.tick(10);
  await assert.rejects(p, (err) => err.code === 'timeout');
});

test('a reply before the timeout clears the timer (no cancel, no second settle)', () => {
  const { bridge, transport, clock } = setup();
  const seen = [];
  bridge.call('fast', {}, { timeout: 100, callback: (r) => seen.push(r) });
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 1 });
  assert.equal(clock.size, 0, 'timer cleared');
  clock.tick(1000);
  assert.equal(seen.length, 1);
  assert.equal(transport.texts.length, 1, 'no cancel posted');
});

test('a timeout of 0, Infinity or null means none; one that is not a number of ms is refused (call-settings.test.js)', () => {
  const { bridge, clock } = setup();
  for (const timeout of [0, Infinity, null]) {
    bridge.call('t', null, { timeout, callback: () => {} });
  }
  for (const timeout of [-5, NaN, '100']) {
    bridge.call('t', null, { timeout, callback: () => {} });
  }
  assert.equal(clock.size, 0);
  assert.equal(bridge.pendingCount(), 3);
});

test('abort settles "cancelled" and posts a cancel; a later reply is ignored', async () => {
  const { bridge, transport } = setup();
  const controller = new AbortController();
  const p = bridge.call('download', { file: 'a' }, { signal: controller.signal });
  const id = transport.messages[0].id;
  controller.abort();
  await assert.rejects(p, (err) => err.code === 'cancelled');
  assert.deepEqual(transport.messages[1], { v: 1, kind: 'cancel', id });
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 1 });
  assert.equal(bridge.pendingCount(), 0);
  controller.abort();
  assert.equal(transport.texts.length, 2);
});

test('an already-aborted signal settles immediately without posting anything', async () => {
  const { bridge, transport } = setup();
  const signal = AbortSignal.abort();
  await assert.rejects(bridge.call('t', 1, { signal }), (err) => err.code === 'cancelled');
  const seen = [];
  bridge.call('t', 1, { signal, callback: (r) => seen.push(r.error.code) });
  await settleMicrotasks();
  assert.deepEqual(seen, ['cancelled']);
  assert.equal(transport.texts.length, 0);
  assert.equal(bridge.pendingCount(), 0);
});

test('the abort listener is removed once the call settles (no leak on long-lived signals)', () => {
  const { bridge, transport } = setup();
  let added = 0;
  let removed = 0;
  const controller = new AbortController();
  const signal = controller.signal;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...a) => { added++; add(...a); };
  signal.removeEventListener = (...a) => { removed++; remove(...a); };
  for (let i = 0; i < 50; i++) { bridge.call('t', i, { signal, callback: () => {} }); }
  transport.messages.forEach((m) => bridge._receive({ v: 1, kind: 'reply', id: m.id, ok: true, data: null }));
  assert.equal(added, 50);
  assert.equal(removed, 50);
  controller.abort();
  assert.equal(transport.texts.length, 50, 'abort after settle posts nothing');
});

test('timeout of a call still queued before the channel is ready removes it without a cancel', () => {
  const win = makeWindow();
  const bridge = createWebBridge({ window: win });
  const seen = [];
  bridge.call('t', 1, { timeout: 50, callback: (r) => seen.push(r.error.code) });
  assert.equal(bridge._sizes().queued, 1);
  win.clock.tick(50);
  assert.deepEqual(seen, ['timeout']);
  assert.equal(bridge._sizes().queued, 0);
  const handler = { texts: [], postMessage(t) { this.texts.push(t); } };
  win.webkit = { messageHandlers: { webbridge: handler } };
  win.dispatchEvent(new Event('DOMContentLoaded'));
  assert.deepEqual(handler.texts, [], 'neither the call nor a cancel is posted');
});

test('abort of a queued call removes it from the queue', async () => {
  const win = makeWindow();
  const bridge = createWebBridge({ window: win });
  const controller = new AbortController();
  const p = bridge.call('t', 1, { signal: controller.signal });
  controller.abort();
  await assert.rejects(p, (err) => err.code === 'cancelled');
  assert.deepEqual(bridge._sizes(), { pending: 0, queued: 0, listeners: 0, handlers: 0, nativeCalls: 0, earlyCancels: 0, mockCalls: 0 });
});

test('onProgress receives progress for its call only, in order, and stops after settle', () => {
  const { bridge, transport } = setup();
  const a = [];
  const b = [];
  bridge.call('dl', 'a', { onProgress: (d) => a.push(d), callback: () => {} });
  bridge.call('dl', 'b', { onProgress: (d) => b.push(d), callback: () => {} });
  const [ida, idb] = transport.messages.map((m) => m.id);
  bridge._receive({ v: 1, kind: 'progress', id: idb, data: 1 });
  bridge._receive({ v: 1, kind: 'progress', id: ida, data: 2 });
  bridge._receive({ v: 1, kind: 'progress', id: ida });
  bridge._receive({ v: 1, kind: 'reply', id: ida, ok: true, data: null });
  bridge._receive({ v: 1, kind: 'progress', id: ida, data: 3 });
  assert.deepEqual(a, [2, null]);
  assert.deepEqual(b, [1]);
});
