'use strict';
// Kind of fault (found by a node attack on the shim's settle paths): a back-forward-cache restore while an ok reply is held (holdReply). Native delivered
// the reply before the page left, so it did not settle that call `navigated`; the shim still
// holds the reply when the page is frozen, takes the call at the restore and rejects it
// `navigated`. Without onUploadProgress the same page resolved the call before it left.
const test = require('node:test');
const assert = require('node:assert/strict');
const { FakeClock, loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

function trusted(type, fields = {}) {
  const event = new Event(type);
  Object.defineProperty(event, 'isTrusted', { value: true });
  for (const [key, value] of Object.entries(fields)) { Object.defineProperty(event, key, { value }); }
  return event;
}
async function flushAll() {
  for (let i = 0; i < 10; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}

test('a restore does not end navigated a call whose ok reply arrived before the page left (waiting for the upload\'s end)', async () => {
  const results = {};
  for (const progress of [false, true]) {
    const clock = new FakeClock();
    const win = makeWindow({ clock, readyState: 'complete' });
    win.document.visibilityState = 'visible';
    const requests = [];
    win.fetch = (url, init) => new Promise((resolve) => { requests.push({ url, init, resolve }); });
    const transport = recordingTransport();
    const bridge = createWebBridge({ window: win, transport });
    const settings = progress ? { onUploadProgress: () => {} } : {};
    const out = {};
    bridge.call('Save', { file: new Uint8Array(5) }, settings).then((v) => { out.v = { ok: v }; }, (e) => { out.v = { code: e.code }; });
    await flushAll();
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 'saved' });
    await flushAll();
    // The page leaves at once (frozen: its timers and fetches do not run), then comes back.
    win.dispatchEvent(trusted('pagehide', { persisted: true }));
    win.document.visibilityState = 'hidden';
    win.dispatchEvent(trusted('visibilitychange'));
    win.document.visibilityState = 'visible';
    win.dispatchEvent(trusted('visibilitychange'));
    win.dispatchEvent(trusted('pageshow', { persisted: true }));
    await flushAll();
    clock.tick(2000);
    await flushAll();
    results[progress ? 'with onUploadProgress' : 'without'] = out.v;
    assert.equal(bridge.pendingCount(), 0);
  }
  assert.deepEqual(results['without'], { ok: 'saved' });
  assert.deepEqual(results['with onUploadProgress'], { ok: 'saved' },
    'native delivered ok before the page left; the restore must not turn it into navigated');
});
