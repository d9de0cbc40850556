'use strict';
// Mock mode (WebBridge.mock): a page in a normal browser gets native's reply shapes, progress,
// errors, timeouts and cancellation from page functions; never when a native channel exists.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {
  loadShim, makeWindow, makeWorlds, finishLoading, recordingHandler, recordingTransport, loadRelay,
  settleMicrotasks, shimSource, evaluateIn, FIXTURE_DIR,
} = require('../testing/fakes.js');

const { createWebBridge, WebBridgeError } = loadShim();

function browser(options = {}) {
  const win = makeWindow(options);
  const bridge = createWebBridge({ window: win });
  return { win, bridge };
}
async function rejection(promise) {
  try { await promise; } catch (err) { return err; }
  assert.fail('the call resolved');
}

test('a mocked call resolves with the mock result, after a JSON round trip like native', async () => {
  const { bridge } = browser();
  const seen = [];
  assert.equal(bridge.mock({ 'Cart.add': (options) => { seen.push(options); return { count: options.qty, at: new Date(0), gone: undefined }; } }), true);
  const options = { sku: 'A-1', qty: 2, skip: undefined, f() {} };
  assert.deepEqual(await bridge.call('Cart.add', options), { count: 2, at: '1970-01-01T00:00:00.000Z' });
  assert.deepEqual(seen, [{ sku: 'A-1', qty: 2 }]);
  assert.notEqual(seen[0], options, 'the mock gets a copy, as native gets JSON');
  bridge.mock({ Nothing: () => undefined, Zero: () => 0, Text: async () => 'ok' });
  assert.equal(await bridge.call('Nothing'), null, 'undefined becomes null, never undefined');
  assert.equal(await bridge.call('Zero'), 0);
  assert.equal(await bridge.call('Text'), 'ok');
  assert.deepEqual(bridge._sizes().mockCalls, 0);
});

test('a mock runs later, never inside call(), like a native task', async () => {
  const { bridge } = browser();
  let ran = false;
  bridge.mock({ Later: () => { ran = true; return 1; } });
  const p = bridge.call('Later');
  assert.equal(ran, false);
  assert.equal(await p, 1);
  assert.equal(ran, true);
});

test('progress from a mock reaches onProgress in order before the reply; none after it', async () => {
  const { bridge } = browser();
  let progress;
  bridge.mock({
    Upload: async (options, context) => {
      progress = context.progress;
      assert.equal(context.progress({ pct: 10 }), true);
      await Promise.resolve();
      assert.equal(context.progress({ pct: 90 }), true);
      return 'done';
    },
  });
  const seen = [];
  const result = await bridge.call('Upload', null, { onProgress: (d) => seen.push(d) });
  assert.equal(result, 'done');
  assert.deepEqual(seen, [{ pct: 10 }, { pct: 90 }]);
  assert.equal(progress({ pct: 100 }), false, 'progress after the reply is refused');
  assert.deepEqual(seen, [{ pct: 10 }, { pct: 90 }]);
});

test('a thrown {code, message, details}, a WebBridgeError, an Error and a rejection fail like native', async () => {
  const { bridge } = browser();
  bridge.mock({
    Coded: () => { throw { code: 'out_of_stock', message: 'Sold out', details: { sku: 'A-1' } }; },
    Typed: () => { throw new WebBridgeError('forbidden', 'Not here', { reason: 'origin_not_allowed' }); },
    Plain: () => { throw new Error('boom'); },
    Rejects: () => Promise.reject({ code: 'busy', message: 'Later' }),
    NotJSON: () => 10n,
  });
  let err = await rejection(bridge.call('Coded'));
  assert.ok(err instanceof WebBridgeError);
  assert.deepEqual([err.code, err.message, err.details], ['out_of_stock', 'Sold out', { sku: 'A-1' }]);
  err = await rejection(bridge.call('Typed'));
  assert.deepEqual([err.code, err.message, err.details], ['forbidden', 'Not here', { reason: 'origin_not_allowed' }]);
  err = await rejection(bridge.call('Plain'));
  assert.deepEqual([err.code, err.message, err.details], ['task_failed', 'boom', null]);
  err = await rejection(bridge.call('Rejects'));
  assert.deepEqual([err.code, err.message], ['busy', 'Later']);
  err = await rejection(bridge.call('NotJSON'));
  assert.equal(err.code, 'invalid_result');
  const reply = await new Promise((resolve) => bridge.call('Coded', {}, resolve));
  assert.deepEqual(reply, { ok: false, error: { code: 'out_of_stock', message: 'Sold out', details: { sku: 'A-1' } } });
});

test('a task without a mock gets unknown_task with native\'s message and details', async () => {
  const { bridge } = browser();
  bridge.mock({ Known: () => 1 });
  const err = await rejection(bridge.call('geo.lookup', {}));
  const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'reply-error.json'), 'utf8')).message.error;
  assert.deepEqual({ code: err.code, message: err.message, details: err.details }, fixture);
  bridge.mock({ Known: null });
  assert.equal((await rejection(bridge.call('Known'))).code, 'unknown_task', 'null removes a mock');
  assert.equal(bridge._sizes().mockCalls, 0);
});

test('a timeout settles the call with "timeout" and aborts the mock\'s signal; its late answer is ignored', async () => {
  const { win, bridge } = browser();
  let finish;
  let signal;
  bridge.mock({ Slow: (o, context) => { signal = context.signal; return new Promise((resolve) => { finish = resolve; }); } });
  const p = bridge.call('Slow', null, { timeout: 50 });
  await settleMicrotasks();
  assert.equal(signal.aborted, false);
  win.clock.tick(50);
  const err = await rejection(p);
  assert.deepEqual([err.code, err.details], ['timeout', { timeout: 50 }]);
  assert.equal(signal.aborted, true);
  finish('late');
  await settleMicrotasks();
  assert.equal(bridge.pendingCount(), 0);
  assert.equal(bridge._sizes().mockCalls, 0);
});

test('an AbortSignal cancels a running mock ("cancelled", signal aborted); an aborted one never runs it', async () => {
  const { bridge } = browser();
  let signal;
  let runs = 0;
  bridge.mock({ Wait: (o, context) => { runs++; signal = context.signal; return new Promise(() => {}); } });
  const controller = new AbortController();
  const p = bridge.call('Wait', null, { signal: controller.signal });
  await settleMicrotasks();
  controller.abort();
  assert.equal((await rejection(p)).code, 'cancelled');
  assert.equal(signal.aborted, true);
  const early = new AbortController();
  const q = bridge.call('Wait', null, { signal: early.signal });
  early.abort();
  assert.equal((await rejection(q)).code, 'cancelled');
  await settleMicrotasks();
  assert.equal(runs, 1, 'a call cancelled before its mock started never runs it');
  assert.equal(bridge._sizes().mockCalls, 0);
});

test('notify runs a mock fire-and-forget: no reply, errors swallowed, unknown tasks dropped', async () => {
  const { bridge } = browser();
  const seen = [];
  bridge.mock({ Track: (options, context) => { seen.push(options); assert.equal(context.progress(1), false); throw new Error('ignored'); } });
  assert.equal(bridge.notify('Track', { event: 'open', count: 0 }), true);
  assert.equal(bridge.notify('Missing', 1), true);
  await settleMicrotasks();
  assert.deepEqual(seen, [{ event: 'open', count: 0 }]);
  assert.equal(bridge.pendingCount(), 0);
  assert.equal(bridge._sizes().mockCalls, 0);
});

test('calls queued before mock() are answered by the mocks; after load without mocks they are unavailable', async () => {
  const { win, bridge } = browser();
  const early = bridge.call('Cart.add', { qty: 1 });
  assert.equal(bridge._sizes().queued, 1);
  bridge.mock({ 'Cart.add': (o) => o.qty + 1 });
  assert.equal(await early, 2);
  const other = browser();
  const p = other.bridge.call('Cart.add');
  finishLoading(other.win);
  assert.equal((await rejection(p)).code, 'unavailable', 'without mocks a normal browser still says unavailable');
  finishLoading(win);
  assert.equal(await bridge.call('Cart.add', { qty: 5 }), 6, 'mocks keep answering after load');
});

test('without a window (node, a worker) a call with no transport and no mocks settles unavailable at once; mocks still answer', async () => {
  // Found by a new user's trial: in node, createWebBridge().call() without mocks never settled
  // (no load event ever comes to end the wait for a channel).
  const bare = createWebBridge();
  const settled = await Promise.race([
    rejection(bare.call('Cart.add', { qty: 1 })),
    new Promise((resolve) => setTimeout(() => resolve(null), 1000)),
  ]);
  assert.ok(settled, 'the call settled');
  assert.equal(settled.code, 'unavailable');
  assert.equal(bare._sizes().queued, 0, 'nothing is kept');
  const mocked = createWebBridge();
  mocked.mock({ 'Cart.add': (o) => o.qty + 1 });
  assert.equal(await mocked.call('Cart.add', { qty: 2 }), 3);
  const transport = recordingTransport();
  createWebBridge({ transport }).call('Cart.add').catch(() => {});
  assert.deepEqual(transport.messages.map((m) => m.task), ['Cart.add'], 'an injected transport gets the call');
});

test('mock mode never engages when a native channel exists: WebKit handler, relay, injected transport', async () => {
  // Direct (WKWebView): the handler gets the call, the mock never runs.
  const handler = recordingHandler();
  const direct = createWebBridge({ window: makeWindow({ handler }) });
  let mockRuns = 0;
  assert.equal(direct.mock({ 'Cart.add': () => { mockRuns++; return 1; } }), false);
  direct.call('Cart.add', { qty: 1 });
  await settleMicrotasks();
  assert.deepEqual(handler.messages.map((m) => m.task), ['Cart.add']);
  assert.equal(direct.tasks(), null, 'no mock list either');
  assert.equal(direct.supports('Cart.add'), false);
  // Relay (WebKitGTK): installed before the page's scripts run, as the host does.
  const worlds = makeWorlds();
  loadRelay().createRelay({ window: worlds.relay });
  const relayed = createWebBridge({ window: worlds.page });
  assert.equal(relayed.mock({ 'Cart.add': () => { mockRuns++; return 1; } }), false);
  relayed.call('Cart.add', { qty: 2 });
  await settleMicrotasks();
  assert.equal(worlds.handler.messages.length, 1);
  // Injected transport.
  const transport = recordingTransport();
  const injected = createWebBridge({ window: makeWindow(), transport });
  assert.equal(injected.mock({ 'Cart.add': () => { mockRuns++; return 1; } }), false);
  injected.call('Cart.add');
  assert.equal(transport.messages.length, 1);
  await settleMicrotasks();
  assert.equal(mockRuns, 0);
  // A native channel that appears after mock() wins at the next post.
  const { win, bridge } = browser();
  bridge.mock({ 'Cart.add': () => { mockRuns++; return 1; } });
  const late = recordingHandler();
  win.webkit = { messageHandlers: { webbridge: late } };
  bridge.call('Cart.add');
  await settleMicrotasks();
  assert.equal(late.messages.length, 1);
  assert.equal(mockRuns, 0);
});

test('the relay rule also holds in a two-world page where the shim installs before the relay', async () => {
  const worlds = makeWorlds();
  const bridge = createWebBridge({ window: worlds.page });
  loadRelay().createRelay({ window: worlds.relay });
  assert.equal(bridge.mock({ X: () => 1 }), false);
});

test('mock() refuses values that are not functions or null, and non-objects', () => {
  const { bridge } = browser();
  assert.throws(() => bridge.mock({ A: () => 1, B: 'yes' }), TypeError);
  assert.equal(bridge.tasks(), null, 'a refused table installs nothing');
  assert.throws(() => bridge.mock(null), TypeError);
  assert.throws(() => bridge.mock([() => 1]), TypeError);
});

const THROW = 'function () { throw new Error("hostile page"); }';
const ATTACKS = [
  'JSON.stringify = ' + THROW + '; JSON.parse = ' + THROW + ';',
  'Promise.prototype.then = ' + THROW + '; Promise.resolve = ' + THROW + '; Promise = ' + THROW + ';',
  ['get', 'set', 'has', 'delete', 'forEach'].map((m) => 'Map.prototype.' + m + ' = ' + THROW + ';').join(' '),
  'Object.keys = ' + THROW + '; Object.create = ' + THROW + '; Object.defineProperty = ' + THROW + ';',
  ['forEach', 'push', 'sort', 'indexOf', 'splice'].map((m) => 'Array.prototype.' + m + ' = ' + THROW + ';').join(' ') +
    ' String.prototype.split = ' + THROW + ';',
  'Function.prototype.call = ' + THROW + '; Function.prototype.apply = ' + THROW + '; AbortController = ' + THROW + ';',
];

for (const attack of ATTACKS) {
  test('mock mode of the classic script keeps working after the page replaced globals: ' + attack.slice(0, 60), async () => {
    const win = makeWindow();
    const ctx = evaluateIn(win, shimSource());
    const bridge = win.WebBridge;
    assert.equal(bridge.mock({ 'Cart.add': (o, { progress }) => { progress({ step: 1 }); return { count: o.qty }; } }), true);
    evaluateIn(win, attack, ctx);
    assert.equal(JSON.stringify(bridge.tasks()), '{"Cart.add":null}');
    assert.equal(bridge.supports('Cart.add'), true);
    const seen = [];
    const reply = await new Promise((resolve) => bridge.call('Cart.add', { qty: 3 }, { onProgress: (d) => seen.push(d), callback: resolve }));
    assert.equal(JSON.stringify(reply), '{"ok":true,"data":{"count":3}}');
    assert.equal(JSON.stringify(seen), '[{"step":1}]');
    const missing = await new Promise((resolve) => bridge.call('Other', null, resolve));
    assert.equal(missing.error.code, 'unknown_task');
    let timedOut;
    bridge.mock({ Slow: () => new Promise(() => {}) });
    bridge.call('Slow', null, { timeout: 20, callback: (r) => { timedOut = r; } });
    await settleMicrotasks(10);
    win.clock.tick(20);
    assert.equal(timedOut && timedOut.error.code, 'timeout');
    assert.equal(bridge._sizes().mockCalls, 0);
  });
}
