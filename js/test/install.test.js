'use strict';
// Loading the shim: classic script (vm context as a fresh document), require and import, and
// installing twice (R21).
const test = require('node:test');
const assert = require('node:assert/strict');
const vm = require('node:vm');
const { pathToFileURL } = require('node:url');
const {
  loadShim, makeWindow, recordingHandler, shimSource, evaluateIn, SHIM_PATH, RELAY_PATH, settleMicrotasks,
} = require('../testing/fakes.js');

test('require exports createWebBridge, install, WebBridgeError and version', () => {
  const api = loadShim();
  assert.equal(typeof api.createWebBridge, 'function');
  assert.equal(typeof api.install, 'function');
  assert.equal(typeof api.WebBridgeError, 'function');
  assert.equal(api.version, '1');
  assert.equal(globalThis.WebBridge, undefined, 'no auto-install in node, where no window-like global exists');
});

test('import (ESM) sees the same named exports', async () => {
  const shim = await import(pathToFileURL(SHIM_PATH).href);
  assert.equal(typeof shim.createWebBridge, 'function');
  assert.equal(typeof shim.install, 'function');
  assert.equal(shim.version, '1');
  assert.equal(shim.default.createWebBridge, shim.createWebBridge);
  const relay = await import(pathToFileURL(RELAY_PATH).href);
  assert.equal(typeof relay.createRelay, 'function');
});

test('as a classic script in a fresh document it installs window.WebBridge at once, before any DOM event', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  evaluateIn(win, shimSource());
  assert.equal(typeof win.WebBridge, 'object');
  assert.equal(win.WebBridge.version, '1');
  assert.equal(win.document.readyState, 'loading');
  win.WebBridge.call('t', 1, () => {});
  assert.equal(handler.texts.length, 1);
});

test('the delivery script native evaluates reaches _receive in a real JS context', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  const ctx = evaluateIn(win, shimSource());
  const seen = [];
  win.WebBridge.call('t', 1, (r) => seen.push(JSON.stringify(r)));
  const id = handler.messages[0].id;
  const script = "(function(m){var b=window.WebBridge;if(b&&typeof b._receive==='function'){b._receive(m);}})(" +
    JSON.stringify({ v: 1, kind: 'reply', id, ok: true, data: { msg: 'a\nb', tpl: '${window.probe}', tick: '`' } }) + ');void 0';
  Object.defineProperty(win, 'probe', { get() { throw new Error('interpolated'); } });
  vm.runInContext(script, ctx);
  assert.deepEqual(seen.map((s) => JSON.parse(s)), [{ ok: true, data: { msg: 'a\nb', tpl: '${window.probe}', tick: '`' } }]);
});

test('in a context without a window-like global the classic script defines nothing and does not throw', () => {
  const sandbox = {};
  assert.doesNotThrow(() => evaluateIn(sandbox, shimSource()));
  assert.equal(sandbox.WebBridge, undefined);
  const workerLike = { addEventListener() {}, dispatchEvent() {} };
  workerLike.window = workerLike;
  evaluateIn(workerLike, shimSource());
  assert.equal(workerLike.WebBridge, undefined, 'no document, not a window');
});

test('R21 evaluating the shim twice is a no-op: same object, pending call still resolvable, no duplicate listeners', async () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  const ctx = evaluateIn(win, shimSource());
  const first = win.WebBridge;
  const countsAfterFirst = new Map(win.listenerCounts);
  const results = [];
  first.call('pending', { n: 1 }, (r) => results.push(JSON.stringify(r)));
  let eventRuns = 0;
  first.on('e', () => { eventRuns++; });
  evaluateIn(win, shimSource(), ctx);
  assert.equal(win.WebBridge, first);
  assert.deepEqual(win.listenerCounts, countsAfterFirst);
  assert.equal(first.pendingCount(), 1);
  const id = handler.messages[0].id;
  win.WebBridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' });
  win.dispatchEvent(new CustomEvent('webbridge:message', { detail: JSON.stringify({ v: 1, kind: 'reply', id, ok: true, data: 'dup' }) }));
  win.WebBridge._receive({ v: 1, kind: 'event', name: 'e' });
  await settleMicrotasks();
  assert.deepEqual(results, ['{"ok":true,"data":"done"}'], 'one reply -> one callback run');
  assert.equal(eventRuns, 1);
  assert.equal(first.pendingCount(), 0);
});

test('R21 a fresh context (new document after reload) gets its own WebBridge with a new id prefix', () => {
  const prefixes = new Set();
  for (let i = 0; i < 3; i++) {
    const handler = recordingHandler();
    const win = makeWindow({ handler });
    evaluateIn(win, shimSource());
    assert.equal(typeof win.WebBridge.call, 'function');
    win.WebBridge.call('t', 1, () => {});
    prefixes.add(handler.messages[0].id.split('-')[0]);
  }
  assert.equal(prefixes.size, 3);
});

test('R21 install twice through the module API returns the same bridge and adds no listeners', () => {
  const { install } = loadShim();
  const win = makeWindow({ handler: recordingHandler() });
  const a = install(win);
  const counts = new Map(win.listenerCounts);
  const b = install(win, { history: true, channel: 'other' });
  assert.equal(a, b);
  assert.deepEqual(win.listenerCounts, counts);
});

test('install adopts neither a foreign non-bridge WebBridge value nor throws on it', () => {
  const { install } = loadShim();
  const win = makeWindow({ handler: recordingHandler() });
  win.WebBridge = { something: 'else' };
  const bridge = install(win);
  assert.equal(win.WebBridge, bridge);
  assert.equal(typeof bridge._receive, 'function');
});

test('window.WebBridge is not enumerable and cannot be overwritten by plain assignment', () => {
  const { install } = loadShim();
  const win = makeWindow();
  const bridge = install(win);
  assert.equal(Object.keys(win).includes('WebBridge'), false);
  assert.throws(() => { 'use strict'; win.WebBridge = {}; }, TypeError);
  assert.equal(win.WebBridge, bridge);
});

test('install never throws at document start: frozen history, a frozen WebBridge name, no CustomEvent', () => {
  const { install } = loadShim();
  const win = makeWindow({ handler: recordingHandler() });
  Object.freeze(win.history);
  assert.doesNotThrow(() => install(win));
  const taken = makeWindow();
  Object.defineProperty(taken, 'WebBridge', { value: 'page value', writable: false, configurable: false });
  let bridge;
  assert.doesNotThrow(() => { bridge = install(taken); });
  assert.equal(typeof bridge.call, 'function');
  const old = makeWindow();
  delete old.CustomEvent;
  const saved = globalThis.CustomEvent;
  globalThis.CustomEvent = undefined;
  try {
    assert.doesNotThrow(() => install(old));
  } finally {
    globalThis.CustomEvent = saved;
  }
});
