'use strict';
// Kind of fault (found by a node attack on the shim's settle paths): a binary value whose ArrayBuffer the page detaches (transfers to a worker) after call().
// A value over the part size is cut into views as each part goes (`sendParts`):
// `new Uint8Array(detachedBuffer, offset, n)` throws, and nothing catches it where it runs.
//  1. Between two parts (inside a promise reaction): the call is never settled by the shim, and
//     the page gets an unhandled rejection.
//  2. In flush() (a queued call sent when the channel becomes ready): the exception escapes the
//     shim's `ready` listener into the page and leaves flush() half done: the calls queued after
//     it stay queued until the next flush (DOMContentLoaded/load or another call).
const test = require('node:test');
const assert = require('node:assert/strict');
const { FakeClock, loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
async function flushAll() {
  for (let i = 0; i < 10; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}

test('a buffer the page detaches between two parts ends its call invalid_options; nothing escapes into the page', async () => {
  const clock = new FakeClock();
  const win = makeWindow({ clock, readyState: 'complete' });
  const requests = [];
  win.fetch = (url, init) => new Promise((resolve) => {
    requests.push({ url, answer: (status, body) => resolve(new Response(JSON.stringify(body), { status })) });
  });
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  const escaped = [];
  const onUnhandled = (reason) => { escaped.push(reason); };
  process.on('unhandledRejection', onUnhandled);
  try {
    const data = new Uint8Array(200000);
    let outcome = null;
    bridge.call('Save', { file: data }).then((v) => { outcome = { ok: v }; }, (e) => { outcome = { code: e.code }; });
    await flushAll();
    assert.equal(requests.length, 1);
    structuredClone(data.buffer, { transfer: [data.buffer] });  // the page hands the bytes to a worker
    assert.equal(data.byteLength, 0);
    requests[0].answer(200, { code: 'ok', partBytes: 65536 });
    await flushAll();
    clock.tick(5000);
    await flushAll();
    assert.deepEqual(escaped.map(String), [], 'no exception escapes the shim');
    assert.notEqual(outcome, null, 'the shim settles the call whose bytes it cannot send');
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('a queued call whose buffer was detached ends invalid_options; flush() sends the calls queued after it', async () => {
  const clock = new FakeClock();
  const win = makeWindow({ clock, readyState: 'loading' });
  win.fetch = () => new Promise(() => {});
  // Listeners run synchronously here so that what escapes them is seen by the test (a browser
  // reports it to window.onerror instead).
  const listeners = new Map();
  win.addEventListener = (type, fn) => { const l = listeners.get(type) || new Set(); l.add(fn); listeners.set(type, l); };
  win.dispatchEvent = (event) => { for (const fn of listeners.get(event.type) || []) { fn(event); } return true; };
  const bridge = createWebBridge({ window: win });
  const posted = [];
  win.addEventListener('webbridge:post', (e) => { posted.push(JSON.parse(e.detail)); });
  const data = new Uint8Array(200000);
  let first = null;
  let second = null;
  bridge.call('Save', { file: data }).then(() => { first = 'ok'; }, (e) => { first = e.code; });
  bridge.call('Ping', {}).then((v) => { second = v; }, (e) => { second = e.code; });
  structuredClone(data.buffer, { transfer: [data.buffer] });
  const thrown = [];
  // The relay announces itself: the shim sends its queue.
  try { win.dispatchEvent(new Event('webbridge:ready')); } catch (err) { thrown.push(String(err)); }
  await flushAll();
  const state = { thrown, posted: posted.filter((m) => m.kind === 'call').map((m) => m.task), queued: bridge._sizes().queued };
  assert.deepEqual(state, { thrown: [], posted: ['Save', 'Ping'], queued: 0 },
    'nothing escapes flush(), and the call queued behind the detached one is sent with it');
  assert.equal(first, 'invalid_options', 'the changed value ends its call, and native hears of it');
  assert.deepEqual(posted.filter((m) => m.kind === 'cancel').length, 1);
  void second;
});

