'use strict';
// Kind of fault (found by a node attack on the shim's settle paths): timers left behind by a settled call. A `no_room` answer schedules a resend
// (`later(retry, delay)`) that settle() never cancels: the call settles, the timer stays armed
// (up to 1 s per call), and when it fires it does nothing (send() finds the call done).
const test = require('node:test');
const assert = require('node:assert/strict');
const { FakeClock, loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
async function flushAll() {
  for (let i = 0; i < 10; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}

test('a settled call leaves no no_room resend timer armed', async () => {
  const clock = new FakeClock();
  const win = makeWindow({ clock, readyState: 'complete' });
  const requests = [];
  win.fetch = (url, init) => new Promise((resolve) => {
    requests.push({ answer: (status, body) => resolve(new Response(JSON.stringify(body), { status })) });
  });
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  const calls = [];
  for (let i = 0; i < 20; i++) {
    calls.push(bridge.call('Save', { file: new Uint8Array(5) }, { onUploadProgress() {} }).catch((e) => e.code));
  }
  await flushAll();
  // Each call's request is answered no_room 9 times (the waits grow to 1 s), then native fails the call.
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < 20; i++) { requests[requests.length - 20 + i].answer(404, { code: 'unknown_transfer', reason: 'no_room' }); }
    await flushAll();
    clock.tick(1000);
    await flushAll();
  }
  for (let i = 0; i < 20; i++) { requests[requests.length - 20 + i].answer(404, { code: 'unknown_transfer', reason: 'no_room' }); }
  await flushAll();
  transport.messages.filter((m) => m.kind === 'call').forEach((m) => {
    bridge._receive({ v: 1, kind: 'reply', id: m.id, ok: false, error: { code: 'task_failed', message: 'no bytes' } });
  });
  assert.deepEqual(await Promise.all(calls), new Array(20).fill('task_failed'));
  assert.equal(bridge.pendingCount(), 0);
  assert.deepEqual(bridge._sizes(), { pending: 0, queued: 0, listeners: 0, handlers: 0, nativeCalls: 0, earlyCancels: 0, mockCalls: 0 });
  assert.equal(clock.size, 0, 'no timer of a settled call stays armed');
});
