'use strict';
// Large binary values upload in parts (issue 26; docs/protocol.md, "Binary values"): one request
// per part (`POST webbridge-binary://transfer/<token>?offset=<n>`), each sent once native answered
// the one before 200, so the app's process holds one part at a time. The first part is 64 KiB;
// every 200 answer tells the app's part size (`partBytes`), which the next parts take.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { FakeClock, loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const MiB = 1048576;
const FIRST = 65536;
const OK = { code: 'ok', partBytes: MiB };

/** A page whose fetch holds every request until the test answers it (`answer(status)`). */
function setup() {
  const clock = new FakeClock();
  const win = makeWindow({ clock });
  const requests = [];
  win.fetch = (url, init) => new Promise((resolve) => {
    requests.push({ url, init, answer: (status, body) => resolve(new Response(JSON.stringify(body || {}), { status })) });
  });
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { requests, transport, bridge, clock };
}
async function flushAll() {
  for (let i = 0; i < 10; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}
function pattern(n) { const a = new Uint8Array(n); for (let i = 0; i < n; i++) { a[i] = i % 251; } return a; }
function bytesOf(body) { return body instanceof ArrayBuffer ? new Uint8Array(body) : new Uint8Array(body.buffer, body.byteOffset, body.byteLength); }

test('a value over the part size goes in parts: 64 KiB first, then the size native tells; each a view; progress per part', async () => {
  const { bridge, requests, transport } = setup();
  const data = pattern(2 * MiB + 5).subarray(3);
  const progress = [];
  bridge.call('Save', { file: data }, { onUploadProgress: (p) => progress.push(p) });
  await flushAll();
  const token = transport.messages[0].options.file.$bridgeBinary.token;
  assert.equal(transport.messages[0].options.file.$bridgeBinary.size, 2 * MiB + 2);
  const offsets = [0, FIRST, FIRST + MiB];
  const sizes = [FIRST, MiB, 2 * MiB + 2 - FIRST - MiB];
  offsets.forEach((offset, i) => assert.ok(offset + sizes[i] <= 2 * MiB + 2));
  for (let i = 0; i < offsets.length; i++) {
    assert.equal(requests.length, i + 1, 'the next part waits for the answer to the one before');
    const request = requests[i];
    assert.equal(request.url, 'webbridge-binary://transfer/' + token + '?offset=' + offsets[i]);
    assert.equal(request.init.method, 'POST');
    const body = bytesOf(request.init.body);
    assert.equal(body.length, sizes[i]);
    assert.equal(body[0], data[offsets[i]]);
    assert.equal(body.buffer, data.buffer, 'a view of the page\'s bytes, not a copy');
    request.answer(200, OK);
    await flushAll();
  }
  assert.equal(requests.length, 3);
  assert.deepEqual(progress.map((p) => p.loaded), [FIRST, FIRST + MiB, 2 * MiB + 2]);
  assert.ok(progress.every((p) => p.total === 2 * MiB + 2));
});

test('a Blob over the part size is read one slice per part (WebKitGTK cannot read Blob bodies)', async () => {
  const { bridge, requests } = setup();
  const data = pattern(MiB + 10);
  bridge.call('Save', { file: new Blob([data]) });
  await flushAll();
  assert.equal(requests.length, 1);
  assert.ok(requests[0].init.body instanceof ArrayBuffer);
  assert.equal(requests[0].init.body.byteLength, FIRST);
  assert.match(requests[0].url, /\?offset=0$/);
  requests[0].answer(200, OK);
  await flushAll();
  assert.equal(requests.length, 2);
  assert.match(requests[1].url, /\?offset=65536$/);
  assert.deepEqual([...new Uint8Array(requests[1].init.body)], [...data.subarray(FIRST)]);
});

test('the app\'s part size, smaller or larger, from the answers (fixture binary/part-answer.json); a malformed one is ignored', async () => {
  const fixture = JSON.parse(fs.readFileSync(
    path.join(__dirname, '..', '..', 'Tests', 'Fixtures', 'binary', 'part-answer.json'), 'utf8'));
  assert.equal(fixture.kind, 'answer');
  for (const [answer, expected] of [[fixture.message.body, fixture.message.body.partBytes], [{ code: 'ok', partBytes: 100000 }, 100000],
    [{ code: 'ok', partBytes: 3 * MiB }, 3 * MiB], [{ code: 'ok', partBytes: 0 }, FIRST], [{ code: 'ok', partBytes: 1.5 }, FIRST],
    [{ code: 'ok', partBytes: '9' }, FIRST], [{ code: 'ok' }, FIRST]]) {
    const { bridge, requests } = setup();
    bridge.call('Save', { file: new Uint8Array(5 * MiB) });
    await flushAll();
    assert.equal(bytesOf(requests[0].init.body).length, FIRST);
    requests[0].answer(fixture.message.status, answer);
    await flushAll();
    assert.equal(bytesOf(requests[1].init.body).length, expected, JSON.stringify(answer));
    assert.match(requests[1].url, /\?offset=65536$/);
  }
});

test('values up to the part size go as one request without an offset: 64 KiB before an answer, then native\'s size', async () => {
  const { bridge, requests } = setup();
  bridge.call('Save', { a: new Uint8Array(FIRST), b: new Blob([new Uint8Array(5)]) });
  await flushAll();
  assert.equal(requests.length, 2);
  assert.ok(requests.every((r) => !r.url.includes('?')));
  bridge.call('Save', { c: new Uint8Array(FIRST + 1) });
  await flushAll();
  assert.equal(requests.length, 3);
  assert.match(requests[2].url, /\?offset=0$/, 'over 64 KiB before the page knows the app\'s size: parts');
  requests[0].answer(200, OK);
  await flushAll();
  bridge.call('Save', { d: new Uint8Array(MiB) });
  await flushAll();
  assert.ok(!requests[requests.length - 1].url.includes('?'), 'up to the size native told: one request');
});

test('a refused part without a code stops the value (the reply settles the call); an abort stops the parts', async () => {
  const { bridge, requests } = setup();
  bridge.call('Save', { file: new Uint8Array(3 * MiB) });
  await flushAll();
  requests[0].answer(413);
  await flushAll();
  assert.equal(requests.length, 1, 'no part after a refusal');

  const controller = new AbortController();
  const p = bridge.call('Save', { file: new Uint8Array(3 * MiB) }, { signal: controller.signal });
  await flushAll();
  assert.equal(requests.length, 2);
  controller.abort();
  await assert.rejects(p, { code: 'cancelled' });
  assert.equal(requests[1].init.signal.aborted, true);
  requests[1].answer(200);
  await flushAll();
  assert.equal(requests.length, 2, 'no part after the call settled');
});

test('a refused part settles the call at once with its code, sends no more parts and tells native (cancel)', async () => {
  for (const [status, code, reason] of [[409, 'invalid_options', 'out_of_order'], [413, 'payload_too_large', undefined],
    [410, 'navigated', undefined], [504, 'timeout', undefined], [403, 'forbidden', undefined]]) {
    const { bridge, requests, transport } = setup();
    const progress = [];
    const p = bridge.call('Save', { file: new Uint8Array(3 * MiB) }, { onUploadProgress: (x) => progress.push(x) });
    await flushAll();
    requests[0].answer(200);
    await flushAll();
    assert.equal(requests.length, 2);
    requests[1].answer(status, { code, reason });
    await assert.rejects(p, (err) => {
      assert.equal(err.code, code);
      assert.equal(err.details.status, status);
      assert.equal(err.details.reason, reason === undefined ? null : reason);
      return true;
    });
    await flushAll();
    assert.equal(requests.length, 2, 'no part after a refusal');
    assert.deepEqual(progress.map((x) => x.loaded), [FIRST], 'a refused part is not progress');
    const cancels = transport.messages.filter((m) => m.kind === 'cancel');
    assert.deepEqual(cancels.map((m) => m.id), [transport.messages[0].id], 'native is told once');
    // The reply that follows is dropped: the call settled once.
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: false, error: { code: 'task_failed', message: 'x' } });
  }
});

test('a part answered cancelled (the task stopped reading) or unknown_transfer: no more parts; the reply settles the call', async () => {
  for (const code of ['cancelled', 'unknown_transfer']) {
    const { bridge, requests, transport } = setup();
    const p = bridge.call('Save', { file: new Uint8Array(3 * MiB) });
    await flushAll();
    requests[0].answer(code === 'cancelled' ? 499 : 404, { code });
    await flushAll();
    assert.equal(requests.length, 1);
    assert.equal(transport.messages.filter((m) => m.kind === 'cancel').length, 0);
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 'head read' });
    assert.equal(await p, 'head read');
  }
});

test('a request native did not let wait (404 unknown_transfer, reason no_room) is sent again a moment later (10 ms, doubling up to 1 s), at most 10 times; a plain 404 is not', async () => {
  const { bridge, requests, transport, clock } = setup();
  const data = pattern(10);
  let outcome = null;
  bridge.call('Save', { file: data }).then((v) => { outcome = { ok: v }; }, (e) => { outcome = { code: e.code }; });
  await flushAll();
  const token = transport.messages[0].options.file.$bridgeBinary.token;
  assert.equal(requests.length, 1);
  requests[0].answer(404, { code: 'unknown_transfer', reason: 'no_room' });
  await flushAll();
  assert.equal(requests.length, 1, 'not at once');
  clock.tick(5);
  await flushAll();
  assert.equal(requests.length, 1, 'not before 10 ms');
  clock.tick(5);
  await flushAll();
  assert.equal(requests.length, 2, 'sent again after 10 ms');
  requests[1].answer(404, { code: 'unknown_transfer', reason: 'no_room' });
  await flushAll();
  clock.tick(15);
  await flushAll();
  assert.equal(requests.length, 2, 'the next wait is longer (20 ms)');
  clock.tick(5);
  await flushAll();
  assert.equal(requests.length, 3, 'sent a third time after 20 ms');
  assert.equal(requests[2].url, 'webbridge-binary://transfer/' + token);
  assert.deepEqual([...bytesOf(requests[2].init.body)], [...data]);
  requests[2].answer(200, OK);
  await flushAll();
  assert.equal(outcome, null, 'the reply settles the call');
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 10 });
  await flushAll();
  assert.deepEqual(outcome, { ok: 10 });

  // Never more than 10 times; a plain unknown_transfer is final.
  bridge.call('Save', { file: pattern(5) });
  await flushAll();
  const first = requests.length - 1;
  for (let i = 0; i < 12; i++) {
    const last = requests[requests.length - 1];
    last.answer(404, { code: 'unknown_transfer', reason: 'no_room' });
    await flushAll();
    clock.tick(1000);
    await flushAll();
  }
  assert.equal(requests.length - first, 11, 'the first send and 10 more');
  bridge.call('Save', { file: pattern(5) });
  await flushAll();
  const plain = requests.length;
  requests[plain - 1].answer(404, { code: 'unknown_transfer' });
  await flushAll();
  clock.tick(1000);
  await flushAll();
  assert.equal(requests.length, plain, 'no retry');
});

// Kind of fault: a page that cannot learn what changed. The app may replace its byte transport
// (WebKitGTKBridgeHost.binaryTransfers) with one of a smaller part size; the shim kept the size of
// the last 200 answer, so every value between the two sizes was refused for the rest of the
// document. The refusal's error names the part size (details.reason part_too_large, limit), and
// the refused request's own 413 answer tells it (partBytes): the next values take it.
test('a value refused for the part size teaches the next values the app\'s part size, from the reply or the 413 answer', async () => {
  for (const via of ['reply', 'answer']) {
    const { bridge, requests, transport } = setup();
    const first = bridge.call('Save', { file: pattern(200000) });
    await flushAll();
    requests[0].answer(200, OK);
    await flushAll();
    const refused = bridge.call('Save', { file: pattern(200000) }).then(() => null, (error) => error);
    await flushAll();
    assert.equal(requests.length, 3, 'learned 1 MiB: the second value goes whole');
    assert.equal(requests[2].url.includes('offset='), false);
    if (via === 'answer') { requests[2].answer(413, { code: 'payload_too_large', reason: 'part_too_large', partBytes: FIRST }); await flushAll(); }
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[1].id, ok: false,
      error: { code: 'payload_too_large', message: 'x', details: via === 'reply' ? { bytes: 200000, limit: FIRST, reason: 'part_too_large' } : { bytes: 200000, limit: FIRST } } });
    assert.equal((await refused).code, 'payload_too_large');
    bridge.call('Save', { file: pattern(200000) });
    await flushAll();
    const next = requests.slice(3);
    assert.equal(next.length, 1);
    assert.match(next[0].url, /offset=0$/, via + ': the next value goes in parts of the size it learned');
    assert.equal(bytesOf(next[0].init.body).length, FIRST);
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 1 });
    await first;
  }
});

test('an error of a call without binary values never changes the part size', async () => {
  const { bridge, requests, transport } = setup();
  const plain = bridge.call('Other', {});
  await flushAll();
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: false,
    error: { code: 'payload_too_large', message: 'x', details: { limit: 10, reason: 'part_too_large' } } });
  await assert.rejects(plain, { code: 'payload_too_large' });
  bridge.call('Save', { file: pattern(60000) });
  await flushAll();
  assert.equal(requests.length, 1);
  assert.equal(requests[0].url.includes('offset='), false, 'still sent whole');
});

// Kind of fault: progress that never reaches its end. Native answers a value's request when the
// task has read it, and the task's reply races that answer back to the page: with the reply
// first, the call settled and the upload's progress ({loaded: total}) was never reported, so a
// page's progress bar stopped short for most small files (found by a front-end developer). A
// successful reply now waits, briefly, for the call's upload requests to end.
test('onUploadProgress reports the whole value before the call resolves, also when the reply comes before the 200', async () => {
  const { bridge, requests, transport, clock } = setup();
  const events = [];
  const call = bridge.call('Save', { file: pattern(5) }, { onUploadProgress: (p) => events.push('progress ' + p.loaded + '/' + p.total) })
    .then((data) => { events.push('resolved ' + data); });
  await flushAll();
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 5 });
  await flushAll();
  assert.deepEqual(events, [], 'the reply waits for its upload request');
  requests[0].answer(200, OK);
  await call;
  assert.deepEqual(events, ['progress 5/5', 'resolved 5']);

  // A request that never ends holds the reply one second at most.
  const late = [];
  const held = bridge.call('Save', { file: pattern(5) }, { onUploadProgress: () => late.push('progress') })
    .then((data) => { late.push('resolved ' + data); });
  await flushAll();
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[1].id, ok: true, data: 6 });
  await flushAll();
  assert.deepEqual(late, []);
  clock.tick(1000);
  await held;
  assert.deepEqual(late, ['resolved 6']);
});
