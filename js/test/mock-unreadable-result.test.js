'use strict';
// Mock mode (WebBridge.mock) against mock answers JSON cannot carry. docs/protocol.md,
// "Mock mode": "a value JSON cannot carry gives invalid_result"; every call settles exactly once.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

function browser(options = {}) {
  const win = makeWindow(options);
  const bridge = createWebBridge({ window: win });
  return { win, bridge };
}
/** How `promise` settles within `ms`: {value}, {error}, or {hung: true}. */
function within(promise, ms) {
  return Promise.race([
    promise.then((value) => ({ value }), (error) => ({ error })),
    new Promise((resolve) => setTimeout(() => resolve({ hung: true }), ms)),
  ]);
}

const hostileResults = {
  'a throwing getter': () => ({ get total() { throw new Error('getter'); } }),
  'a throwing getter one level down': () => ({ cart: { get total() { throw new Error('getter'); } } }),
  'a throwing toJSON getter': () => ({ get toJSON() { throw new Error('toJSON'); } }),
  'a Proxy whose ownKeys throws': () => new Proxy({}, { ownKeys() { throw new Error('ownKeys'); } }),
};

for (const [name, make] of Object.entries(hostileResults)) {
  test(`a mock result with ${name} settles the call once with invalid_result, never leaves it waiting`, { timeout: 5000 }, async () => {
    const { bridge } = browser();
    const unhandled = [];
    const onUnhandled = (reason) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      bridge.mock({ Bad: make });
      const outcome = await within(bridge.call('Bad'), 1000);
      assert.equal(outcome.hung, undefined, 'the call never settled (pending: ' + bridge.pendingCount() + ')');
      assert.equal(outcome.error && outcome.error.code, 'invalid_result');
      assert.equal(bridge.pendingCount(), 0);
      assert.equal(bridge._sizes().mockCalls, 0);
      assert.deepEqual(unhandled, [], 'the shim threw into an unhandled rejection');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
}

test('the same result through the callback form settles too (the callback runs once)', { timeout: 5000 }, async () => {
  const { bridge } = browser();
  bridge.mock({ Bad: () => ({ get total() { throw new Error('getter'); } }) });
  const replies = [];
  bridge.call('Bad', {}, (reply) => replies.push(reply));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(replies.length, 1, 'the callback never ran');
  assert.equal(replies[0].ok, false);
  assert.equal(replies[0].error.code, 'invalid_result');
});
