'use strict';
// Attacks on the held successful reply (holdReply/releaseReply): a call with onUploadProgress
// whose native reply ok arrived before its upload requests ended. Each test compares the same
// sequence of events with and without onUploadProgress: the page's outcome should not depend on
// whether it asked for upload progress, and a reply native delivered should not be overridden.
const test = require('node:test');
const assert = require('node:assert/strict');
const { FakeClock, loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const OK = { code: 'ok', partBytes: 1048576 };

function setup() {
  const clock = new FakeClock();
  const win = makeWindow({ clock, readyState: 'complete' });
  const requests = [];
  win.fetch = (url, init) => new Promise((resolve, reject) => {
    requests.push({ url, init,
      answer: (status, body) => resolve(new Response(JSON.stringify(body || {}), { status })),
      fail: (err) => reject(err || new TypeError('Load failed')) });
  });
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { win, requests, transport, bridge, clock };
}
async function flushAll() {
  for (let i = 0; i < 10; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}
function outcomeOf(p) {
  const o = { value: undefined };
  p.then((v) => { o.value = { ok: v }; }, (e) => { o.value = { code: e.code }; });
  return o;
}
const withProgress = [false, true];

// Native answered ok at 400 ms, inside the 500 ms timeout; the call's upload 200 is late.
// Without onUploadProgress the call resolves; with it, the held reply was thrown away at 500 ms
// and the call rejected `timeout` (and a `cancel` was posted for a call native already finished).
test('a call\'s timeout while its ok reply waits for the upload\'s end: the reply settles it', async () => {
  const results = {};
  for (const progress of withProgress) {
    const { bridge, requests, transport, clock } = setup();
    const settings = { timeout: 500 };
    if (progress) { settings.onUploadProgress = () => {}; }
    const o = outcomeOf(bridge.call('Save', { file: new Uint8Array(5) }, settings));
    await flushAll();
    assert.equal(requests.length, 1);
    clock.tick(400);
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 'saved' });
    await flushAll();
    clock.tick(200);  // the timeout is due at 500 ms
    await flushAll();
    requests[0].answer(200, OK);
    await flushAll();
    clock.tick(2000);
    await flushAll();
    results[progress ? 'with onUploadProgress' : 'without'] = o.value;
  }
  assert.deepEqual(results['without'], { ok: 'saved' });
  assert.deepEqual(results['with onUploadProgress'], { ok: 'saved' },
    'native replied ok within the timeout; asking for upload progress must not change the outcome');
});

// Two values: native's task read both and replied ok; one upload request then fails at the
// network level (the 200 was lost) while the other's 200 is still on its way. Without
// onUploadProgress the call resolved with the reply; with it the held reply is discarded and the
// call rejects `unavailable`.
test('an upload request failing while the ok reply waits: the reply settles the call', async () => {
  const results = {};
  for (const progress of withProgress) {
    const { bridge, requests, transport } = setup();
    const settings = progress ? { onUploadProgress: () => {} } : {};
    const o = outcomeOf(bridge.call('Save', { a: new Uint8Array(5), b: new Uint8Array(7) }, settings));
    await flushAll();
    assert.equal(requests.length, 2);
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 'saved' });
    await flushAll();
    requests[0].fail(new TypeError('Load failed'));
    await flushAll();
    requests[1].answer(200, OK);
    await flushAll();
    results[progress ? 'with onUploadProgress' : 'without'] = o.value;
  }
  assert.deepEqual(results['without'], { ok: 'saved' });
  assert.deepEqual(results['with onUploadProgress'], { ok: 'saved' },
    'a reply native delivered is the outcome; asking for upload progress must not change it');
});

// Same with a refusal that carries a code (a 4xx answer read after the reply): with one request
// in flight the held reply is released first (ok), with two the refusal wins.
test('a refused upload answer while the ok reply waits and another request is in flight: the reply settles the call', async () => {
  const results = {};
  for (const progress of withProgress) {
    const { bridge, requests, transport } = setup();
    const settings = progress ? { onUploadProgress: () => {} } : {};
    const o = outcomeOf(bridge.call('Save', { a: new Uint8Array(5), b: new Uint8Array(7) }, settings));
    await flushAll();
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 'saved' });
    await flushAll();
    requests[0].answer(504, { code: 'timeout' });
    await flushAll();
    requests[1].answer(200, OK);
    await flushAll();
    results[progress ? 'with onUploadProgress' : 'without'] = o.value;
  }
  assert.deepEqual(results['without'], { ok: 'saved' });
  assert.deepEqual(results['with onUploadProgress'], { ok: 'saved' });
});

// The page aborts (e.g. the user clicks Cancel) after native's ok reply reached the page but
// while it is held: without onUploadProgress the call had already resolved (abort is a no-op);
// with it the call rejects `cancelled` and a `cancel` is posted for a finished call.
test('the page\'s abort while the ok reply waits: the reply settles the call, and native gets no cancel', async () => {
  const results = {};
  for (const progress of withProgress) {
    const { bridge, requests, transport } = setup();
    const ac = new AbortController();
    const settings = { signal: ac.signal };
    if (progress) { settings.onUploadProgress = () => {}; }
    const o = outcomeOf(bridge.call('Save', { file: new Uint8Array(5) }, settings));
    await flushAll();
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 'saved' });
    await flushAll();
    ac.abort();
    requests[0].answer(200, OK);
    await flushAll();
    results[progress ? 'with onUploadProgress' : 'without'] = o.value;
    assert.equal(transport.messages.filter((m) => m.kind === 'cancel').length, 0, 'no cancel for a call native finished');
  }
  assert.deepEqual(results['without'], { ok: 'saved' });
  assert.deepEqual(results['with onUploadProgress'], { ok: 'saved' });
});
