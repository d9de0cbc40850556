'use strict';
// Issue 20, item 5: the shim captures the intrinsics it uses when it installs, so a page that
// replaces its globals afterwards (Promise, JSON, Map and its methods, Array methods,
// Function.prototype.call/apply, CustomEvent, window.dispatchEvent, setTimeout, ...) can neither
// make `call`, `notify`, `on`, `handle` or `_receive` throw nor stop calls from settling.
// The shim is evaluated as a classic script in a vm context whose global is a fake window, so the
// page's globals are that context's own intrinsics, as in a browser.
const test = require('node:test');
const assert = require('node:assert/strict');
const vm = require('node:vm');
const {
  makeWindow, makeWorlds, recordingHandler, shimSource, relaySource, evaluateIn, settleMicrotasks,
} = require('../testing/fakes.js');

const THROW = 'function () { throw new Error("hostile page"); }';

/** Page-world attacks, each a script run in the page after the shim installed. */
const ATTACKS = {
  'Promise replaced': 'Promise = ' + THROW + ';',
  'Promise.prototype.then and Promise.resolve replaced': 'Promise.prototype.then = ' + THROW + '; Promise.resolve = ' + THROW + ';',
  'Promise species and constructor poisoned':
    'Object.defineProperty(Promise, Symbol.species, { get: ' + THROW + ' }); Promise.prototype.constructor = 42;',
  'JSON replaced': 'JSON = undefined;',
  'JSON.stringify and JSON.parse replaced': 'JSON.stringify = ' + THROW + '; JSON.parse = ' + THROW + ';',
  'Map replaced': 'Map = ' + THROW + ';',
  'Map.prototype methods replaced': ['get', 'set', 'has', 'delete', 'forEach'].map((m) => 'Map.prototype.' + m + ' = ' + THROW + ';').join(' ') +
    ' Object.defineProperty(Map.prototype, "size", { get: ' + THROW + ' });',
  'Array.prototype methods and Array.isArray replaced':
    ['forEach', 'push', 'shift', 'indexOf', 'splice', 'slice', 'filter', 'concat'].map((m) => 'Array.prototype.' + m + ' = ' + THROW + ';').join(' ') +
    ' Array.isArray = ' + THROW + ';',
  'Function.prototype.call, apply and bind replaced':
    'Function.prototype.call = ' + THROW + '; Function.prototype.apply = ' + THROW + '; Function.prototype.bind = ' + THROW + ';',
  'Object.defineProperty, Object.freeze and hasOwnProperty replaced':
    'Object.defineProperty = ' + THROW + '; Object.freeze = ' + THROW + '; Object.prototype.hasOwnProperty = ' + THROW + ';',
  'timers replaced': 'window.setTimeout = ' + THROW + '; window.clearTimeout = ' + THROW + ';',
  'TypeError, Error and String replaced': 'TypeError = ' + THROW + '; Error = ' + THROW + '; String = ' + THROW + ';',
  'CustomEvent and window.dispatchEvent replaced': 'CustomEvent = ' + THROW + '; window.dispatchEvent = ' + THROW + ';',
};

/** Plain node-realm copy of a value from the page realm (deepEqual compares prototypes). */
function plain(x) { return x === undefined ? undefined : JSON.parse(JSON.stringify(x)); }

/** A page with the shim installed as a classic script: direct channel (`window.webkit`), or the relay's. */
function page(viaRelay) {
  if (!viaRelay) {
    const handler = recordingHandler();
    const win = makeWindow({ handler });
    const ctx = evaluateIn(win, shimSource());
    return { win, ctx, bridge: win.WebBridge, posted: () => handler.messages };
  }
  const { page: win, relay, handler } = makeWorlds();
  evaluateIn(relay, relaySource());
  const ctx = evaluateIn(win, shimSource());
  return { win, ctx, bridge: win.WebBridge, posted: () => handler.messages.map((e) => JSON.parse(e[2])) };
}

/** Records the outcome of a page-realm promise in `box.outcome`, read with the page's `then` as it was before the attack. */
function recordOutcome(then, p, box) {
  // The page poisoned its own Promise.prototype.constructor in one attack; reading the promise is the test's business.
  Object.defineProperty(p, 'constructor', { value: undefined });
  Reflect.apply(then, p, [(v) => { box.outcome = { ok: true, data: plain(v) }; }, (e) => { box.outcome = { ok: false, code: e && e.code }; }]);
}

/** Every entry point after the attack: nothing throws, and calls, notices, events, handlers and timeouts work. */
function exercise(env) {
  const { bridge, win, posted } = env;
  const then = vm.runInContext('Promise.prototype.then', env.ctx);
  return async (attack) => {
    vm.runInContext(attack, env.ctx);
    let p;
    const replies = [];
    const events = [];
    assert.doesNotThrow(() => { p = bridge.call('cart.add', { sku: 'A-1' }); }, 'call (promise form)');
    assert.ok(p && typeof p === 'object', 'call returns a promise');
    const box = { outcome: null };
    recordOutcome(then, p, box);
    assert.doesNotThrow(() => bridge.call('cart.add', 2, (r) => { replies.push(plain(r)); }), 'call (callback form)');
    let timedOut;
    assert.doesNotThrow(() => bridge.call('slow', null, { timeout: 50, callback: (r) => { timedOut = plain(r); } }), 'call with timeout');
    assert.equal(bridge.notify('analytics.track', { event: 'open' }), true, 'notify');
    assert.doesNotThrow(() => bridge.on('cart.updated', (d) => { events.push(plain(d)); }), 'on');
    assert.doesNotThrow(() => bridge.handle('page.title', () => 'Checkout'), 'handle');

    const calls = posted().filter((m) => m.kind === 'call');
    assert.deepEqual(calls.map((m) => m.task), ['cart.add', 'cart.add', 'slow', 'analytics.track']);
    assert.deepEqual(plain(calls[0].options), { sku: 'A-1' });
    assert.equal(bridge.pendingCount(), 3);
    assert.doesNotThrow(() => bridge._receive(JSON.stringify({ v: 1, kind: 'reply', id: calls[0].id, ok: true, data: { count: 3 } })));
    assert.doesNotThrow(() => bridge._receive({ v: 1, kind: 'reply', id: calls[1].id, ok: false, error: { code: 'forbidden', message: 'no' } }));
    assert.doesNotThrow(() => bridge._receive({ v: 1, kind: 'event', name: 'cart.updated', data: { count: 4 } }));
    assert.doesNotThrow(() => bridge._receive(JSON.stringify({ v: 1, kind: 'call', id: 'n-1', task: 'page.title', options: null })));
    assert.doesNotThrow(() => bridge._receive('not json'));
    await settleMicrotasks(10);
    win.clock.tick(50);
    await settleMicrotasks(10);

    assert.deepEqual(box.outcome, { ok: true, data: { count: 3 } });
    assert.deepEqual(replies, [{ ok: false, error: { code: 'forbidden', message: 'no', details: null } }]);
    assert.equal(timedOut && timedOut.error.code, 'timeout');
    assert.deepEqual(events, [{ count: 4 }]);
    const after = posted();
    assert.ok(after.some((m) => m.kind === 'cancel' && m.id === calls[2].id), 'the timed-out call is cancelled');
    assert.ok(after.some((m) => m.kind === 'reply' && m.id === 'n-1' && m.ok === true && m.data === 'Checkout'), 'the page handler answered');
    assert.equal(bridge.pendingCount(), 0);
  };
}

for (const viaRelay of [false, true]) {
  for (const [name, attack] of Object.entries(ATTACKS)) {
    test('hostile globals (' + (viaRelay ? 'relay' : 'direct') + ' channel): ' + name + ' after install; call, notify, on, handle and _receive still work and never throw', async () => {
      const env = page(viaRelay);
      await exercise(env)(attack);
    });
  }
}
