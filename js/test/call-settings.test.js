'use strict';
// Call settings a page gets wrong are refused, not ignored (found by a front-end developer's
// trial: passing the AbortController instead of its signal, or `timeout: "10"`, silently did
// nothing, while a bad `binary` setting failed with invalid_message); a signal that timed out
// (`AbortSignal.timeout`) settles the call `timeout`, not `cancelled`.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, recordingHandler, finishLoading } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

function app() {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  const bridge = createWebBridge({ window: win });
  finishLoading(win);
  return { win, bridge, handler };
}
async function rejection(promise) {
  try { await promise; } catch (err) { return err; }
  assert.fail('the call resolved');
}

test('a signal that is not an AbortSignal, or a timeout that is not a number of ms, fails the call invalid_message; nothing is posted', async () => {
  const { bridge, handler } = app();
  const controller = new AbortController();
  for (const settings of [
    { signal: controller }, { signal: {} }, { signal: 'abort' }, { timeout: '10' }, { timeout: -1 }, { timeout: NaN },
    { timeout: {} },
  ]) {
    const err = await rejection(bridge.call('Echo', {}, settings));
    assert.equal(err.code, 'invalid_message', JSON.stringify(Object.keys(settings)));
    const reply = await new Promise((resolve) => bridge.call('Echo', {}, { ...settings, callback: resolve }));
    assert.equal(reply.error.code, 'invalid_message', 'the callback form too');
  }
  assert.equal(handler.texts.length, 0);
  assert.equal(bridge.pendingCount(), 0);
});

test('valid settings still pass: a real signal, no timeout (0, Infinity, null, undefined), a number', async () => {
  const { bridge, handler } = app();
  for (const settings of [
    { signal: new AbortController().signal }, { timeout: 0 }, { timeout: Infinity }, { timeout: null },
    { timeout: undefined, signal: undefined }, { signal: null }, { timeout: 5000 },
  ]) {
    bridge.call('Echo', {}, settings).catch(() => {});
  }
  assert.equal(handler.texts.length, 7);
});

test('a signal that timed out (AbortSignal.timeout) settles the call timeout, before it is sent and while it runs', async () => {
  const { bridge } = app();
  const timedOut = new AbortController();
  timedOut.abort(new DOMException('signal timed out', 'TimeoutError'));
  const before = await rejection(bridge.call('Echo', {}, { signal: timedOut.signal }));
  assert.equal(before.code, 'timeout');

  const later = new AbortController();
  const running = bridge.call('Echo', {}, { signal: later.signal });
  later.abort(new DOMException('signal timed out', 'TimeoutError'));
  assert.equal((await rejection(running)).code, 'timeout');

  const plain = new AbortController();
  const cancelled = bridge.call('Echo', {}, { signal: plain.signal });
  plain.abort();
  assert.equal((await rejection(cancelled)).code, 'cancelled', 'any other reason: cancelled');
});
