'use strict';
// Kind of fault (found by an attack in real WebKitGTK on the progress queue of 9e3c5e9): bytes
// native offered that the page never reads, or reads one after the other. Every download native
// announces to the page must be read or given back (`?cancel`) at once: a call aborted or timed
// out while its progress values waited, a progress value for a call without `onProgress`, an
// event nobody listens to. Otherwise native holds the bytes until they expire (60 s) and later
// calls fail `memory_budget_exceeded`. And a value queued behind a slow one must not wait to
// start its read (it expired on native, and was lost without a word), nor may a read that stalls
// hold the call's reply or the events behind it for ever.
const test = require('node:test');
const assert = require('node:assert/strict');
const { FakeClock, loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
async function flushAll() {
  for (let i = 0; i < 20; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}
const STALL_MS = 10000;

/**
 * A bridge whose fetch keeps each GET of a token pending until the test answers it
 * (`answer(token, bytes)`), rejects it when its signal aborts, and records every URL.
 */
function setup() {
  const clock = new FakeClock();
  const win = makeWindow({ clock });
  const urls = [];
  const open = new Map();
  win.fetch = (url, init) => {
    urls.push(String(url));
    if (String(url).endsWith('?cancel')) { return Promise.resolve(new Response('{}', { status: 200 })); }
    const token = /transfer\/([0-9a-f]{32})/.exec(url)[1];
    return new Promise((resolve, reject) => {
      open.set(token, resolve);
      if (init && init.signal) { init.signal.addEventListener('abort', () => reject(new Error('aborted'))); }
    });
  };
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  const answer = (token, bytes) => open.get(token)(new Response(new Uint8Array(bytes), { status: 200 }));
  const requested = (token) => urls.some((u) => u.includes(token) && !u.endsWith('?cancel'));
  const cancelled = (token) => urls.some((u) => u.includes(token) && u.endsWith('?cancel'));
  return { clock, win, bridge, transport, answer, requested, cancelled, urls };
}
const token = (i) => String(i).repeat(32).slice(0, 32).replace(/[^0-9a-f]/g, 'a');
const progress = (id, i, size = 4) => ({
  v: 1, kind: 'progress', id, binary: [token(i)], data: { i, b: { $bridgeBinary: { token: token(i), size } } },
});

for (const replied of [false, true]) {
  test(`an abort while progress values with bytes wait (${replied ? 'native\'s reply held' : 'no reply yet'}): every one was being read, and each is given back; the call settles once`, async () => {
    const { bridge, transport, requested, cancelled, urls } = setup();
    const ac = new AbortController();
    const seen = [];
    const outcome = bridge.call('T', null, { signal: ac.signal, onProgress: (d) => seen.push(d.i) })
      .then((v) => 'ok:' + v, (e) => 'err:' + e.code);
    await flushAll();
    const id = transport.messages[0].id;
    for (let i = 1; i <= 5; i++) { bridge._receive(progress(id, i, 8 << 20)); }
    if (replied) { bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' }); }
    await flushAll();
    for (let i = 1; i <= 5; i++) { assert.ok(requested(token(i)), `value ${i} is read as soon as it arrives`); }
    ac.abort();
    await flushAll();
    // Native's answer, when it was already held, wins over the abort (docs/protocol.md), once.
    assert.equal(await outcome, replied ? 'ok:done' : 'err:cancelled');
    assert.deepEqual(seen, []);
    for (let i = 1; i <= 5; i++) {
      assert.ok(cancelled(token(i)), `value ${i}'s download is given back to native: ${JSON.stringify(urls)}`);
    }
  });
}

test('progress with bytes for a call without onProgress, or for no pending call, is given back at once and never read', async () => {
  const { bridge, transport, requested, cancelled } = setup();
  const p = bridge.call('T', null);
  await flushAll();
  const id = transport.messages[0].id;
  bridge._receive(progress(id, 1));
  bridge._receive(progress('no-such-call', 2));
  await flushAll();
  for (const i of [1, 2]) {
    assert.ok(!requested(token(i)), `value ${i} is not read`);
    assert.ok(cancelled(token(i)), `value ${i} is given back`);
  }
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' });
  assert.equal(await p, 'done');
});

test('a value behind a slow one starts its read at once, and still reaches onProgress after it', async () => {
  const { bridge, transport, answer, requested } = setup();
  const seen = [];
  const p = bridge.call('T', null, { onProgress: (d) => seen.push([d.i, [...d.b]]) });
  await flushAll();
  const id = transport.messages[0].id;
  bridge._receive(progress(id, 1));
  bridge._receive(progress(id, 2));
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' });
  await flushAll();
  assert.ok(requested(token(2)), 'the second value is read while the first is');
  answer(token(2), [2, 2, 2, 2]);
  await flushAll();
  assert.deepEqual(seen, [], 'the second waits for the first');
  answer(token(1), [1, 1, 1, 1]);
  assert.equal(await p, 'done');
  assert.deepEqual(seen, [[1, [1, 1, 1, 1]], [2, [2, 2, 2, 2]]]);
});

test('a progress read that stalls holds the reply for BINARY_STALL_MS without a byte, then the call settles with native\'s reply', async () => {
  const { clock, bridge, transport, cancelled } = setup();
  const seen = [];
  let outcome = null;
  bridge.call('T', null, { onProgress: (d) => seen.push(d.i) }).then((v) => { outcome = 'ok:' + v; }, (e) => { outcome = 'err:' + e.code; });
  await flushAll();
  const id = transport.messages[0].id;
  bridge._receive(progress(id, 1));
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' });
  await flushAll();
  clock.tick(STALL_MS - 1);
  await flushAll();
  assert.equal(outcome, null, 'held while the read may still come');
  clock.tick(1);
  await flushAll();
  assert.equal(outcome, 'ok:done');
  assert.deepEqual(seen, []);
  assert.ok(cancelled(token(1)), 'the stalled read is given back');
});

test('events: one nobody listens to gives its bytes back; one whose read stalls is dropped after BINARY_STALL_MS, and the next goes on', async () => {
  const { clock, win, bridge, answer, requested, cancelled } = setup();
  bridge._receive({ v: 1, kind: 'event', name: 'unheard', binary: [token(1)], data: { $bridgeBinary: { token: token(1), size: 4 } } });
  await flushAll();
  assert.ok(!requested(token(1)) && cancelled(token(1)));
  const seen = [];
  bridge.on('x', (d) => seen.push(d instanceof Uint8Array ? [...d] : d));
  bridge._receive({ v: 1, kind: 'event', name: 'x', binary: [token(2)], data: { $bridgeBinary: { token: token(2), size: 4 } } });
  bridge._receive({ v: 1, kind: 'event', name: 'x', binary: [token(3)], data: { $bridgeBinary: { token: token(3), size: 4 } } });
  bridge._receive({ v: 1, kind: 'event', name: 'x', data: 'plain' });
  await flushAll();
  assert.ok(requested(token(3)), 'the second event\'s read starts at once');
  answer(token(3), [3, 3, 3, 3]);
  await flushAll();
  assert.deepEqual(seen, []);
  clock.tick(STALL_MS);
  await flushAll();
  assert.deepEqual(seen, [[3, 3, 3, 3], 'plain']);
  assert.ok(cancelled(token(2)), 'the stalled read is given back');
  assert.ok(win.console.errors.some((a) => a.join(' ').includes('binary values of event x failed: timeout')));
});

test('a reply with bytes for a call that already settled (its time limit) gives them back, unread', async () => {
  const { clock, bridge, transport, requested, cancelled } = setup();
  const outcome = bridge.call('T', null, { timeout: 50 }).then((v) => 'ok:' + v, (e) => 'err:' + e.code);
  await flushAll();
  const id = transport.messages[0].id;
  clock.tick(50);
  assert.equal(await outcome, 'err:timeout');
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, binary: [token(7)], data: { $bridgeBinary: { token: token(7), size: 4 } } });
  await flushAll();
  assert.ok(!requested(token(7)) && cancelled(token(7)));
});

// Kind of fault: the tokens a call's last message announces but does not place. A task that
// offered bytes (`BinaryTransfers.send`) and then failed, or did not use them, sends them in its
// final reply's envelope; nothing will ever read them.
for (const settled of [false, true]) {
  test(`an error reply announcing downloads gives them back, unread${settled ? ' (for a call that already settled)' : ''}; the call settles with the error`, async () => {
    const { clock, bridge, transport, requested, cancelled } = setup();
    const outcome = bridge.call('T', null, { timeout: 50 }).then((v) => 'ok:' + v, (e) => 'err:' + e.code);
    await flushAll();
    const id = transport.messages[0].id;
    if (settled) { clock.tick(50); }
    bridge._receive({
      v: 1, kind: 'reply', id, ok: false, binary: [token(5), token(6)],
      error: { code: 'task_failed', message: 'no', details: { b: { $bridgeBinary: { token: token(5), size: 4 } } } },
    });
    await flushAll();
    assert.equal(await outcome, settled ? 'err:timeout' : 'err:task_failed');
    for (const i of [5, 6]) { assert.ok(!requested(token(i)) && cancelled(token(i)), `download ${i} is given back`); }
  });
}

test('a success reply gives back the downloads its envelope announces and its data does not place; it reads the one it places', async () => {
  const { bridge, transport, answer, requested, cancelled } = setup();
  const outcome = bridge.call('T', null).then((v) => [...v.b]);
  await flushAll();
  const id = transport.messages[0].id;
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, binary: [token(1), token(2)], data: { b: { $bridgeBinary: { token: token(1), size: 2 } } } });
  await flushAll();
  assert.ok(requested(token(1)) && !cancelled(token(1)));
  assert.ok(!requested(token(2)) && cancelled(token(2)));
  answer(token(1), [9, 8]);
  assert.deepEqual(await outcome, [9, 8]);
});

test('a reply held for earlier progress values gives its unplaced downloads back once, when it is released', async () => {
  const { bridge, transport, answer, urls } = setup();
  const seen = [];
  const outcome = bridge.call('T', null, { onProgress: (d) => seen.push(d.i) }).then((v) => 'ok:' + v, (e) => 'err:' + e.code);
  await flushAll();
  const id = transport.messages[0].id;
  bridge._receive(progress(id, 1));
  bridge._receive({ v: 1, kind: 'reply', id, ok: false, binary: [token(9)], error: { code: 'task_failed', message: 'late' } });
  await flushAll();
  answer(token(1), [1, 1, 1, 1]);
  assert.equal(await outcome, 'err:task_failed');
  assert.deepEqual(seen, [1]);
  assert.equal(urls.filter((u) => u.includes(token(9)) && u.endsWith('?cancel')).length, 1);
});
