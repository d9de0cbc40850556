'use strict';
// Kind of fault (found by a node attack on the shim's settle paths): a back-forward-cache restore in mock mode (a normal browser, where bfcache is common).
// The restore settles the page's pending calls `navigated`, as native does on its side; but in mock
// mode the "native side" is the shim's own mock runner, and nobody tells it: the mock's
// context.signal is never aborted, and its entry stays in `mockCalls` for good. A timeout or
// AbortSignal in the same situation posts `cancel`, which aborts the mock and frees the entry.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWebBridge } = require('../webbridge.js');
const { makeWindow, settleMicrotasks } = require('../testing/fakes.js');

function trusted(type, fields = {}) {
  const event = new Event(type);
  Object.defineProperty(event, 'isTrusted', { value: true });
  for (const [key, value] of Object.entries(fields)) { Object.defineProperty(event, key, { value }); }
  return event;
}

test('a restore in mock mode aborts the mocks of the calls it ends; no mock entry outlives its call', async () => {
  const win = makeWindow({ readyState: 'complete' });
  win.document.visibilityState = 'visible';
  const bridge = createWebBridge({ window: win });
  const signals = [];
  // A mock that runs until it is cancelled (as a long native task would).
  bridge.mock({ Watch: (options, context) => new Promise((resolve, reject) => {
    signals.push(context.signal);
    context.signal.addEventListener('abort', () => reject(Object.assign(new Error('stopped'), { code: 'cancelled' })));
  }) });
  const calls = [];
  for (let i = 0; i < 5; i++) { calls.push(bridge.call('Watch', {}).catch((e) => e.code)); }
  await settleMicrotasks(20);
  assert.equal(bridge._sizes().mockCalls, 5);
  win.dispatchEvent(trusted('pagehide', { persisted: true }));
  win.dispatchEvent(trusted('pageshow', { persisted: true }));
  assert.deepEqual(await Promise.all(calls), new Array(5).fill('navigated'));
  await settleMicrotasks(20);
  assert.equal(bridge.pendingCount(), 0);
  assert.deepEqual(signals.map((s) => s.aborted), new Array(5).fill(true), 'the mocks learn that their calls ended');
  assert.equal(bridge._sizes().mockCalls, 0, 'no mock entry outlives its call');
});
