'use strict';
// Channel selection (injected, direct, relay), the bounded queue before ready, and "unavailable".
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  loadShim, makeWindow, finishLoading, recordingHandler, recordingTransport, settleMicrotasks,
} = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

test('direct transport: posts JSON text to window.webkit.messageHandlers.webbridge', () => {
  const handler = recordingHandler();
  const bridge = createWebBridge({ window: makeWindow({ handler }) });
  bridge.call('cart.add', { sku: 'A-1' }, () => {});
  assert.equal(typeof handler.texts[0], 'string');
  assert.equal(handler.messages[0].task, 'cart.add');
});

test('direct transport: a Promise resolving to a message (text or object) is received; null is only an ack', async () => {
  const replies = [];
  const handler = recordingHandler((text) => {
    const m = JSON.parse(text);
    const reply = { v: 1, kind: 'reply', id: m.id, ok: true, data: m.options };
    const mode = m.options;
    if (mode === 'text') { return Promise.resolve(JSON.stringify(reply)); }
    if (mode === 'object') { return Promise.resolve(reply); }
    if (mode === 'reject') { return Promise.reject(new Error('handler failed')); }
    return Promise.resolve(mode === 'empty' ? '' : null);
  });
  const bridge = createWebBridge({ window: makeWindow({ handler }) });
  for (const mode of ['text', 'object', 'null', 'empty', 'reject']) {
    bridge.call('echo', mode, (r) => replies.push([mode, r]));
  }
  await settleMicrotasks(10);
  assert.deepEqual(replies, [['text', { ok: true, data: 'text' }], ['object', { ok: true, data: 'object' }]]);
  assert.equal(bridge.pendingCount(), 3, 'an ack or a rejection settles nothing by itself');
});

test('the injected transport wins over a direct handler', () => {
  const handler = recordingHandler();
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: makeWindow({ handler }), transport });
  bridge.call('t', 1, () => {});
  assert.equal(transport.texts.length, 1);
  assert.equal(handler.texts.length, 0);
});

test('the channel name option selects another message handler and event prefix', () => {
  const win = makeWindow();
  const custom = recordingHandler();
  win.webkit = { messageHandlers: { webbridge: recordingHandler(), custom } };
  const bridge = createWebBridge({ window: win, channel: 'custom' });
  bridge.call('t', 1, () => {});
  assert.equal(custom.texts.length, 1);
  assert.equal(win.webkit.messageHandlers.webbridge.texts.length, 0);
});

test('the channel is chosen at each post: a handler that appears later is used from then on', () => {
  const win = makeWindow();
  const bridge = createWebBridge({ window: win });
  bridge.call('first', 1, () => {});
  const handler = recordingHandler();
  win.webkit = { messageHandlers: { webbridge: handler } };
  bridge.call('second', 2, () => {});
  assert.deepEqual(handler.messages.map((m) => m.task), ['first', 'second'], 'queue flushed first, in order');
});

test('queue before ready: calls wait, then flush in order at DOMContentLoaded', () => {
  const win = makeWindow();
  const bridge = createWebBridge({ window: win });
  bridge.call('a', 1, () => {});
  bridge.notify('b', 2);
  bridge.call('c', 3, () => {});
  assert.equal(bridge._sizes().queued, 3);
  const handler = recordingHandler();
  win.webkit = { messageHandlers: { webbridge: handler } };
  win.dispatchEvent(new Event('DOMContentLoaded'));
  assert.deepEqual(handler.messages.map((m) => m.task), ['a', 'b', 'c']);
  assert.equal(bridge._sizes().queued, 0);
  assert.equal(bridge.pendingCount(), 2);
});

test('the queue is bounded at 1000: the 1001st call settles too_many_pending_calls', async () => {
  const win = makeWindow();
  const bridge = createWebBridge({ window: win });
  const codes = [];
  for (let i = 0; i < 1000; i++) { bridge.call('t', i, (r) => codes.push(r.error.code)); }
  await assert.rejects(bridge.call('t', 1000), (err) => err.code === 'too_many_pending_calls' && err.details.limit === 1000);
  assert.equal(bridge.notify('t', 'dropped'), false);
  assert.equal(bridge._sizes().queued, 1000);
  const handler = recordingHandler();
  win.webkit = { messageHandlers: { webbridge: handler } };
  win.dispatchEvent(new Event('load'));
  assert.equal(handler.texts.length, 1000);
  assert.deepEqual(handler.messages.slice(0, 3).map((m) => m.options), [0, 1, 2]);
  assert.deepEqual(codes, []);
});

test('unavailable after load: queued and new calls settle "unavailable" instead of throwing', async () => {
  const win = makeWindow();
  const bridge = createWebBridge({ window: win });
  const seen = [];
  bridge.call('queued', 1, (r) => seen.push(r.error.code));
  const queuedPromise = bridge.call('queued-promise', 2);
  finishLoading(win);
  await assert.rejects(queuedPromise, (err) => err.code === 'unavailable');
  let result;
  assert.doesNotThrow(() => { result = bridge.call('late', 3, (r) => seen.push(r.error.code)); });
  assert.equal(result, undefined);
  await assert.rejects(bridge.call('late-promise', 4), (err) => err.code === 'unavailable');
  await settleMicrotasks();
  assert.deepEqual(seen, ['unavailable', 'unavailable']);
  assert.deepEqual(bridge._sizes(), { pending: 0, queued: 0, listeners: 0, handlers: 0, nativeCalls: 0, earlyCancels: 0, mockCalls: 0 });
});

test('installing after the document finished loading with no channel settles calls unavailable', async () => {
  const bridge = createWebBridge({ window: makeWindow({ readyState: 'complete' }) });
  await assert.rejects(bridge.call('t', 1), (err) => err.code === 'unavailable');
});

test('DOMContentLoaded alone does not make calls unavailable (the relay may still come)', () => {
  const win = makeWindow();
  const bridge = createWebBridge({ window: win });
  const seen = [];
  bridge.call('t', 1, (r) => seen.push(r));
  win.document.readyState = 'interactive';
  win.dispatchEvent(new Event('DOMContentLoaded'));
  assert.deepEqual(seen, []);
  assert.equal(bridge._sizes().queued, 1);
});

test('a channel whose post throws settles the call "unavailable" and never throws to the caller', async () => {
  const handler = { postMessage() { throw new TypeError('handler gone'); } };
  const bridge = createWebBridge({ window: makeWindow({ handler }) });
  await assert.rejects(bridge.call('t', 1), (err) => err.code === 'unavailable' && err.details.reason === 'handler gone');
  const seen = [];
  assert.doesNotThrow(() => bridge.call('t', 1, (r) => seen.push(r.error.code)));
  await settleMicrotasks();
  assert.deepEqual(seen, ['unavailable']);
  assert.equal(bridge.pendingCount(), 0);
});

test('a webkit object with throwing getters is treated as no handler', () => {
  const win = makeWindow();
  Object.defineProperty(win, 'webkit', { get() { throw new Error('no access'); } });
  const bridge = createWebBridge({ window: win });
  assert.doesNotThrow(() => bridge.call('t', 1, () => {}));
  assert.equal(bridge._sizes().queued, 1);
});

test('a bridge without any window works with an injected transport only', async () => {
  const transport = recordingTransport((text) => {
    const m = JSON.parse(text);
    return Promise.resolve(JSON.stringify({ v: 1, kind: 'reply', id: m.id, ok: true, data: m.options * 2 }));
  });
  const bridge = createWebBridge({ transport });
  assert.equal(await bridge.call('double', 21), 42);
});
