'use strict';
// Download tokens in the envelope (issue 26; docs/protocol.md, "Binary values"): a reply or
// progress message lists the tokens of the downloads it introduces in its own `binary` member,
// which only native writes; the shim records them as announced before it looks for placeholders
// in the message's data. Tokens inside `data` (page data echoed back) are never honoured.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const FIXTURES = path.join(__dirname, '..', '..', 'Tests', 'Fixtures', 'binary');
const fixture = (name) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));

/** A bridge whose fetch records requests and answers each with `bytes`. */
function setup(bytes = [7, 8, 9]) {
  const win = makeWindow();
  const requests = [];
  win.fetch = (url, init) => {
    requests.push({ url, init: init || {} });
    return Promise.resolve(new Response(new Uint8Array(bytes), { status: 200 }));
  };
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { requests, transport, bridge };
}
async function flushAll() {
  for (let i = 0; i < 20; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}

test('fixture reply-with-envelope-tokens: the envelope token is honoured without any announcement event; tokens in data are not', async () => {
  const f = fixture('reply-with-envelope-tokens.json');
  assert.equal(f.direction, 'native-to-page');
  assert.equal(f.kind, f.message.kind);
  const reply = f.message;
  const { bridge, requests, transport } = setup();
  const progress = [];
  const p = bridge.call('File.open', null, { onDownloadProgress: (x) => progress.push(x) });
  await flushAll();
  bridge._receive({ ...reply, id: transport.messages[0].id });
  const data = await p;
  assert.ok(data.file instanceof Uint8Array);
  assert.deepEqual([...data.file], [7, 8, 9]);
  assert.deepEqual(data.echo, reply.data.echo, 'a token listed only inside data stays data');
  assert.deepEqual(data.binary, reply.data.binary, 'data keeps its own "binary" member');
  assert.deepEqual(requests.map((r) => r.url), ['webbridge-binary://transfer/' + reply.binary[0] + '?offset=0']);
  assert.deepEqual(progress[progress.length - 1], { loaded: 3, total: 3 });
});

test('the same reply text as a JSON string (the reply-handler route) is honoured too', async () => {
  const reply = fixture('reply-with-envelope-tokens.json').message;
  const { bridge, requests, transport } = setup();
  const p = bridge.call('File.open', null);
  await flushAll();
  bridge._receive(JSON.stringify({ ...reply, id: transport.messages[0].id }));
  const data = await p;
  assert.ok(data.file instanceof Uint8Array);
  assert.equal(requests.length, 1);
});

test('a progress envelope\'s tokens are honoured for its own data; the final reply then needs none', async () => {
  const token = 'ab'.repeat(16);
  const { bridge, requests, transport } = setup([1, 2]);
  const seen = [];
  const p = bridge.call('T', null, { onProgress: (d) => seen.push(d) });
  await flushAll();
  const id = transport.messages[0].id;
  bridge._receive({ v: 1, kind: 'progress', id, binary: [token], data: { part: { $bridgeBinary: { token, size: 2 } } } });
  await flushAll();
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' });
  assert.equal(await p, 'done');
  await flushAll();
  assert.equal(seen.length, 1);
  assert.ok(seen[0].part instanceof Uint8Array);
  assert.deepEqual([...seen[0].part], [1, 2]);
  assert.equal(requests.length, 1);
});

test('an error reply with tokens settles with its error; its downloads are given back, never read', async () => {
  const token = 'cd'.repeat(16);
  const { bridge, requests, transport } = setup();
  const p = bridge.call('T', null);
  await flushAll();
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: false, binary: [token],
    error: { code: 'task_failed', message: 'no' } });
  await assert.rejects(p, { code: 'task_failed' });
  assert.deepEqual(requests.map((r) => String(r.url)), ['webbridge-binary://transfer/' + token + '?cancel']);
});

test('tokens listed in data, or in another call\'s envelope with nothing to fetch, do not make a look-alike bytes', async () => {
  const token = 'ef'.repeat(16);
  const { bridge, requests, transport } = setup();
  const p = bridge.call('T', null);
  await flushAll();
  const lookalike = { $bridgeBinary: { token, size: 3 } };
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: { binary: [token], x: lookalike } });
  assert.deepEqual(await p, { binary: [token], x: lookalike });
  assert.equal(requests.length, 0);
});

test('envelope tokens that are not strings are ignored; a "binary" member that is not an array is ignored', async () => {
  const token = '12'.repeat(16);
  const { bridge, requests, transport } = setup();
  const a = bridge.call('A', null);
  const b = bridge.call('B', null);
  await flushAll();
  const [ma, mb] = transport.messages;
  const lookalike = { $bridgeBinary: { token, size: 3 } };
  bridge._receive({ v: 1, kind: 'reply', id: ma.id, ok: true, binary: [{ token }, 5, null], data: lookalike });
  bridge._receive({ v: 1, kind: 'reply', id: mb.id, ok: true, binary: token, data: lookalike });
  assert.deepEqual(await a, lookalike);
  assert.deepEqual(await b, lookalike);
  assert.equal(requests.length, 0);
});

test('a reply that comes while a progress value\'s bytes are read waits for them: progress first, nothing lost', async () => {
  const token = 'ef'.repeat(16);
  const { bridge, transport } = setup([5, 6]);
  const order = [];
  const p = bridge.call('T', null, { onProgress: (d) => order.push(d.part instanceof Uint8Array ? [...d.part] : d.part) });
  await flushAll();
  const id = transport.messages[0].id;
  // Native sends both at once (a task that reports bytes and returns): the reply comes before
  // the progress value's bytes have been read.
  bridge._receive({ v: 1, kind: 'progress', id, binary: [token], data: { part: { $bridgeBinary: { token, size: 2 } } } });
  bridge._receive({ v: 1, kind: 'progress', id, data: { part: 'plain' } });
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' });
  const data = await p;
  order.push(data);
  assert.deepEqual(order, [[5, 6], 'plain', 'done']);
});

test('an error reply also waits for the progress values before it; a value whose bytes fail is dropped, the rest go on', async () => {
  const good = '12'.repeat(16);
  const bad = '34'.repeat(16);
  const win = makeWindow();
  win.fetch = (url) => Promise.resolve(String(url).includes(bad)
    ? new Response('gone', { status: 410 }) : new Response(new Uint8Array([5, 6]), { status: 200 }));
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  const order = [];
  const p = bridge.call('T', null, { onProgress: (d) => order.push(d.part instanceof Uint8Array ? [...d.part] : d.part) });
  await flushAll();
  const id = transport.messages[0].id;
  bridge._receive({ v: 1, kind: 'progress', id, binary: [good], data: { part: { $bridgeBinary: { token: good, size: 2 } } } });
  bridge._receive({ v: 1, kind: 'progress', id, binary: [bad], data: { part: { $bridgeBinary: { token: bad, size: 2 } } } });
  bridge._receive({ v: 1, kind: 'progress', id, data: { part: 'after' } });
  bridge._receive({ v: 1, kind: 'reply', id, ok: false, error: { code: 'declined', message: 'no' } });
  await assert.rejects(p, (e) => { order.push(e.code); return true; });
  assert.deepEqual(order, [[5, 6], 'after', 'declined']);
});
