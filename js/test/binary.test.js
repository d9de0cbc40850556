'use strict';
// Binary values (issue 26; docs/protocol.md, "Binary values"): placeholders in calls, uploads and
// downloads through the byte transport (a fake fetch here), the fixtures in Tests/Fixtures/binary.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const FIXTURES = path.join(__dirname, '..', '..', 'Tests', 'Fixtures', 'binary');
const fixture = (name) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
const TOKEN = /^[0-9a-f]{32}$/;

/** A window whose fetch records requests and answers from `respond(url, init)`. */
function setup(respond) {
  const win = makeWindow();
  const requests = [];
  win.fetch = (url, init) => {
    requests.push({ url, init: init || {} });
    return Promise.resolve(respond ? respond(url, init || {}) : new Response('{}', { status: 200 }));
  };
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { win, requests, transport, bridge };
}
async function flushAll() {
  for (let i = 0; i < 20; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}

test('fixture call-with-binary: the shim writes placeholders for binary values and leaves look-alike objects alone', async () => {
  const f = fixture('call-with-binary.json').message;
  const { bridge, transport, requests } = setup();
  const photo = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' });
  bridge.call(f.task, { name: 'a.png', photo, meta: { $bridgeBinary: 'just data' } });
  await flushAll();
  const sent = transport.messages[0];
  const token = sent.options.photo.$bridgeBinary.token;
  assert.match(token, TOKEN);
  const expected = JSON.parse(JSON.stringify(f.options));
  expected.photo.$bridgeBinary.token = token;
  assert.deepEqual(sent.options, expected);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].url, 'webbridge-binary://transfer/' + token);
  assert.equal(requests[0].init.method, 'POST');
  assert.ok(requests[0].init.body instanceof ArrayBuffer, 'a Blob is sent as its bytes (WebKitGTK cannot read Blob bodies)');
  assert.deepEqual([...new Uint8Array(requests[0].init.body)], [1, 2, 3]);
  assert.equal(requests[0].init.headers, undefined, 'no header: a simple request, no preflight');
});

test('typed arrays (their own range only), ArrayBuffers and DataViews in nested arrays become placeholders; the page objects are not changed', async () => {
  const { bridge, transport, requests } = setup();
  const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
  const options = { list: [backing.subarray(2, 5), { deep: new ArrayBuffer(4) }], view: new DataView(new ArrayBuffer(2)), n: 1 };
  bridge.call('T', options);
  await flushAll();
  const o = transport.messages[0].options;
  assert.equal(o.list[0].$bridgeBinary.size, 3);
  assert.equal(o.list[1].deep.$bridgeBinary.size, 4);
  assert.equal(o.view.$bridgeBinary.size, 2);
  assert.equal(o.n, 1);
  assert.ok(options.list[0] instanceof Uint8Array, 'the caller\'s object is untouched');
  assert.equal(requests.length, 3);
  assert.deepEqual([...requests[0].init.body], [1, 2, 3]);
  assert.equal(new Set(requests.map((r) => r.url)).size, 3, 'one token per value');
});

test('uploads start only once the call is posted, and are aborted when the call settles', async () => {
  const { bridge, requests, transport } = setup(() => new Promise(() => {}));
  const controller = new AbortController();
  const p = bridge.call('T', { file: new Uint8Array(10) }, { signal: controller.signal });
  await flushAll();
  assert.equal(requests.length, 1);
  controller.abort();
  await assert.rejects(p, { code: 'cancelled' });
  assert.equal(requests[0].init.signal.aborted, true);
  assert.equal(transport.messages[1].kind, 'cancel');
});

// Kind of fault: an error that does not say what to do. A web view that does not serve the byte
// transport (the app set no BinaryTransfers on its host) fails every byte request with the
// engine's bare "Load failed": the message names the fix, the engine's reason stays in it.
const NAMES_THE_FIX = /byte transport is not available \(Load failed\).*BinaryTransfers/;

test('a fetch that fails (no byte transport) settles the call unavailable, naming the fix', async () => {
  const win = makeWindow();
  win.fetch = () => Promise.reject(new TypeError('Load failed'));
  const bridge = createWebBridge({ window: win, transport: recordingTransport() });
  await assert.rejects(bridge.call('T', { file: new Uint8Array(1) }), (error) => {
    assert.equal(error.code, 'unavailable');
    assert.match(error.message, NAMES_THE_FIX);
    assert.equal(error.details.reason, 'Load failed');
    return true;
  });
});

test('a download the engine fails (no byte transport) settles the call unavailable, naming the fix', async () => {
  const reply = fixture('reply-with-binary.json').message;
  const { bridge, transport } = setup(() => Promise.reject(new TypeError('Load failed')));
  const p = bridge.call('File.open', null);
  await flushAll();
  bridge._receive(fixture('announcement.json').message);
  bridge._receive({ ...reply, id: transport.messages[0].id });
  await assert.rejects(p, (error) => {
    assert.equal(error.code, 'unavailable');
    assert.match(error.message, NAMES_THE_FIX);
    return true;
  });
});

test('fixtures announcement + reply-with-binary: an announced placeholder becomes a Uint8Array, an unannounced look-alike stays data; progress is reported', async () => {
  const announcement = fixture('announcement.json').message;
  const reply = fixture('reply-with-binary.json').message;
  const { bridge, requests, transport } = setup(() => new Response(new Uint8Array([7, 8, 9]), { status: 200 }));
  const progress = [];
  const p = bridge.call('File.open', null, { onDownloadProgress: (x) => progress.push(x) });
  await flushAll();
  const id = transport.messages[0].id;
  bridge._receive(announcement);
  bridge._receive({ ...reply, id });
  const data = await p;
  assert.ok(data.file instanceof Uint8Array);
  assert.deepEqual([...data.file], [7, 8, 9]);
  assert.deepEqual(data.echo, reply.data.echo);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].url, 'webbridge-binary://transfer/' + announcement.data.tokens[0] + '?offset=0', 'a value of known size is read in parts; native answered all of it in the first');
  assert.equal(requests[0].init.method, 'GET');
  assert.deepEqual(progress[progress.length - 1], { loaded: 3, total: 3 });
});

test('the announcement event never reaches listeners; without it a placeholder is plain data', async () => {
  const { bridge, requests, transport } = setup();
  const seen = [];
  bridge.on('webbridge.binary', (d) => seen.push(d));
  bridge._receive(fixture('announcement.json').message);
  const p = bridge.call('T', null);
  await flushAll();
  const placeholder = { $bridgeBinary: { token: 'ffffffffffffffffffffffffffffffff', size: 1 } };
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: placeholder });
  assert.deepEqual(await p, placeholder);
  assert.deepEqual(seen, []);
  assert.equal(requests.length, 0);
});

test('a download refused by native (its JSON code) fails the call with that code; a short body fails with invalid_result', async () => {
  let n = 0;
  // The short body: one byte in the first part, none in the next one.
  const { bridge, transport } = setup((url) => (++n === 1
    ? new Response('{"code":"navigated"}', { status: 410 })
    : new Response(new Uint8Array(/offset=0$/.test(url) ? [1] : []), { status: 200 })));
  const tokens = ['11111111111111111111111111111111', '22222222222222222222222222222222'];
  bridge._receive({ v: 1, kind: 'event', name: 'webbridge.binary', data: { tokens } });
  const a = bridge.call('A', null);
  const b = bridge.call('B', null);
  await flushAll();
  const [ma, mb] = transport.messages;
  bridge._receive({ v: 1, kind: 'reply', id: ma.id, ok: true, data: { $bridgeBinary: { token: tokens[0], size: 5 } } });
  await assert.rejects(a, { code: 'navigated' });
  bridge._receive({ v: 1, kind: 'reply', id: mb.id, ok: true, data: { $bridgeBinary: { token: tokens[1], size: 5 } } });
  await assert.rejects(b, { code: 'invalid_result' });
  assert.equal(bridge.pendingCount(), 0);
});

test('cancelling while a download is read aborts it and settles once', async () => {
  const { bridge, requests, transport } = setup(() => new Promise(() => {}));
  const token = '33333333333333333333333333333333';
  bridge._receive({ v: 1, kind: 'event', name: 'webbridge.binary', data: { tokens: [token] } });
  const controller = new AbortController();
  let settled = 0;
  const p = bridge.call('A', null, { signal: controller.signal });
  p.catch(() => {}).finally(() => { settled++; });
  await flushAll();
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: { $bridgeBinary: { token, size: 1 } } });
  await flushAll();
  controller.abort();
  await assert.rejects(p, { code: 'cancelled' });
  await flushAll();
  assert.equal(requests[0].init.signal.aborted, true);
  assert.equal(settled, 1);
});

test('a downloaded value of known size is read in parts, one after the other, into one Uint8Array; one of unknown size in one GET', async () => {
  const all = [1, 2, 3, 4, 5];
  const { bridge, transport, requests } = setup((url) => {
    const m = /\?offset=(\d+)$/.exec(url);
    const from = m ? Number(m[1]) : 0;
    return new Response(new Uint8Array(all.slice(from, m ? from + 2 : all.length)), { status: 200 });
  });
  const tokens = ['44444444444444444444444444444444', '55555555555555555555555555555555'];
  bridge._receive({ v: 1, kind: 'event', name: 'webbridge.binary', data: { tokens } });
  const progress = [];
  const a = bridge.call('A', null, { onDownloadProgress: (p) => progress.push(p) });
  const b = bridge.call('B', null);
  await flushAll();
  const [ma, mb] = transport.messages;
  bridge._receive({ v: 1, kind: 'reply', id: ma.id, ok: true, data: { $bridgeBinary: { token: tokens[0], size: 5 } } });
  assert.deepEqual([...(await a)], all);
  assert.deepEqual(requests.map((r) => r.url.split('/').pop()), [0, 2, 4].map((n) => tokens[0] + '?offset=' + n));
  assert.deepEqual(progress[progress.length - 1], { loaded: 5, total: 5 });
  bridge._receive({ v: 1, kind: 'reply', id: mb.id, ok: true, data: { $bridgeBinary: { token: tokens[1] } } });
  assert.deepEqual([...(await b)], all);
  assert.equal(requests[3].url, 'webbridge-binary://transfer/' + tokens[1]);
  assert.equal(bridge.pendingCount(), 0);
});

test('a download read into a Uint8Array whose call is aborted between two parts asks for no further part and tells native (?cancel)', async () => {
  const { bridge, transport, requests } = setup((url) => new Response(new Uint8Array(/offset=0$/.test(url) ? [1, 2] : []), { status: 200 }));
  const token = '66666666666666666666666666666666';
  bridge._receive({ v: 1, kind: 'event', name: 'webbridge.binary', data: { tokens: [token] } });
  const controller = new AbortController();
  const p = bridge.call('A', null, { signal: controller.signal, onDownloadProgress: (q) => { if (q.loaded >= 2) { controller.abort(); } } });
  await flushAll();
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: { $bridgeBinary: { token, size: 4 } } });
  await assert.rejects(p, { code: 'cancelled' });
  await flushAll();
  assert.deepEqual(requests.map((r) => r.url.split('?')[1]), ['offset=0', 'cancel']);
});
