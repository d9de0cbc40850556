'use strict';
// Mock mode, the other direction: a page in a normal browser (or a unit test) gets events and
// native-to-page calls as the app would send them (WebBridge.mockEmit, WebBridge.mockCallPage),
// so `WebBridge.on` listeners and `WebBridge.handle` handlers can be developed and tested without
// the app (found by a front-end developer's trial: only the internal `_receive` could do it, and
// a handler's answer in mock mode went nowhere).
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, recordingHandler } = require('../testing/fakes.js');

const { createWebBridge, WebBridgeError } = loadShim();

function browser(options = {}) {
  const win = makeWindow(options);
  const bridge = createWebBridge({ window: win });
  return { win, bridge };
}
async function rejection(promise) {
  try { await promise; } catch (err) { return err; }
  assert.fail('the promise resolved');
}

test('mockEmit reaches every listener later, with the data after a JSON round trip, like an event from native', async () => {
  const { bridge } = browser();
  const seen = [];
  bridge.on('cart.updated', (data) => seen.push(data));
  const data = { count: 3, at: new Date(0), skip: undefined };
  assert.equal(bridge.mockEmit('cart.updated', data), true);
  assert.deepEqual(seen, [], 'later, never inside mockEmit');
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(seen, [{ count: 3, at: '1970-01-01T00:00:00.000Z' }]);
  assert.notEqual(seen[0], data);
  assert.equal(bridge.mockEmit('nobody.listens'), true);
  assert.throws(() => bridge.mockEmit(''), TypeError);
  assert.throws(() => bridge.mockEmit('x', { n: 1n }), TypeError, 'not JSON: refused, as the app cannot send it');
});

test('mockCallPage runs the handler and resolves with its answer as JSON; a handler error rejects with its code', async () => {
  const { bridge } = browser();
  const seen = [];
  bridge.handle('page.selection', (options, context) => {
    seen.push(options);
    assert.ok(context.signal instanceof AbortSignal);
    return { items: ['a', 'b'], when: new Date(0) };
  });
  assert.deepEqual(await bridge.mockCallPage('page.selection', { max: 2 }), {
    items: ['a', 'b'], when: '1970-01-01T00:00:00.000Z',
  });
  assert.deepEqual(seen, [{ max: 2 }]);

  bridge.handle('page.fail', () => { throw { code: 'not_ready', message: 'Not yet', details: { retry: true } }; });
  const failed = await rejection(bridge.mockCallPage('page.fail'));
  assert.ok(failed instanceof WebBridgeError);
  assert.equal(failed.code, 'not_ready');
  assert.deepEqual(failed.details, { retry: true });

  const missing = await rejection(bridge.mockCallPage('page.none'));
  assert.equal(missing.code, 'unknown_task');
  assert.equal(bridge._sizes().nativeCalls, 0);
});

test('mockCallPage with a timeout cancels the handler (its signal aborts) and rejects with timeout', async () => {
  const { win, bridge } = browser();
  let signal;
  bridge.handle('page.slow', (options, context) => {
    signal = context.signal;
    return new Promise(() => {});
  });
  const pending = bridge.mockCallPage('page.slow', null, { timeout: 20 });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(signal.aborted, false);
  win.clock.tick(20);
  const err = await rejection(pending);
  assert.deepEqual(err.details, { timeout: 20 });
  assert.equal(err.code, 'timeout');
  assert.equal(signal.aborted, true, 'the page got the cancel native sends after a timeout');
  assert.equal(bridge._sizes().nativeCalls, 0);
});

test('with a native channel, mockEmit and mockCallPage send nothing', async () => {
  const handler = recordingHandler();
  const { bridge } = browser({ handler });
  const seen = [];
  bridge.on('e', (data) => seen.push(data));
  assert.equal(bridge.mockEmit('e', 1), false);
  const err = await rejection(bridge.mockCallPage('page.x'));
  assert.equal(err.code, 'unavailable');
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(seen, []);
});

test('mockEmit and mockCallPage engage mock mode: the handler\'s answer is not queued for a native channel', async () => {
  const { bridge } = browser();
  bridge.handle('page.title', () => 'Checkout');
  assert.equal(await bridge.mockCallPage('page.title'), 'Checkout');
  assert.equal(bridge._sizes().queued, 0);
  assert.equal(bridge.supports('Anything'), false, 'no mocks installed: no tasks');
});
