'use strict';
// Attack 12 on the shim's early cancels (d31ccb6: a cancel that arrives before its call is kept
// in `earlyCancels`, at most 256, and the call with that id never runs).
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

function setup() {
  const win = makeWindow();
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { win, transport, bridge };
}
const nativeCall = (id, task, options) => ({ v: 1, kind: 'call', id, task, options });

// Finding 5: a cancel that arrives *after* its call finished is kept as an "early" cancel and
// swallows the next call with that id. Native sends a cancel whenever it gives up on a call that
// left the router, so a cancel racing the page's answer (native's timeout fires while the reply is
// on its way: the common case with short timeouts) reaches a shim whose `nativeCalls` no longer
// has the id; `onNativeCancel` cannot tell this from a cancel that overtook its call and records
// it. The ids of one router never repeat, but the router numbers from `n-1` again, and a second
// router may be attached to the same controller and document (R24, TeardownTests: detach, then
// attach another router; no reload). Its call `n-1` is then dropped by the shim without running
// and without an answer: the native `callPage` waits for its whole timeout (30 s by default;
// forever with `timeout: nil`) — not "every call settles promptly". Before d31ccb6 a late cancel
// was a no-op.
// Suggested fix: make native call ids unique per router, not only per router's life (a random
// prefix per router: `n-<session>-<k>`), so a stale early cancel can never match; and/or have the
// shim remember the ids of the native calls it finished (bounded, like `earlyCancels`) and drop a
// cancel for one of them instead of keeping it.
test('attack 12: a cancel that arrives after its call finished does not swallow a later call with that id', async () => {
  const { bridge, transport } = setup();
  let runs = 0;
  bridge.handle('save', () => { runs++; return 'saved'; });
  bridge._receive(nativeCall('n-1', 'save', {}));
  await settleMicrotasks();
  assert.equal(transport.messages.length, 1, 'the page answered n-1');
  // Native's timeout fired while that answer was on its way: the cancel arrives after the call finished.
  bridge._receive({ v: 1, kind: 'cancel', id: 'n-1' });
  // The app attaches a new router to the same web view (R24); it numbers its calls from n-1 again.
  bridge._receive(nativeCall('n-1', 'save', { second: true }));
  await settleMicrotasks();
  assert.equal(runs, 2, "the new router's call n-1 never ran: a stale cancel of the old one swallowed it");
  assert.equal(transport.messages.length, 2, "the new router's call n-1 was never answered");
  assert.equal(bridge._sizes().earlyCancels, 0, 'no stale early cancel kept');
});
