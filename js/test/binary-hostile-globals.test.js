'use strict';
// The byte transport against a page that replaces platform methods after the shim installed
// (SECURITY.md, "Break the shim by replacing the page's globals"): the shim reads fetch's
// responses, their body streams, Blobs, typed arrays' length and crypto's random bytes with the
// platform's own accessors, captured when it installs, so a binary call still settles, with the
// right bytes, when the page has replaced `Response.prototype.json`,
// `ReadableStreamDefaultReader.prototype.read` (a promise that never settles: before, the call
// never settled), `Blob.prototype.slice` and the rest. Here the "page's" globals are node's own
// (the shim captured them when it loaded); each test restores them. `%TypedArray%.prototype.length`
// is not replaced here: node's own fetch reads it, and loops.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const never = function () { return new Promise(() => {}); };
const lie = function () { throw new Error('hostile page'); };

/** Replaces each `[object, key, descriptor]` for the length of `body`, then restores it. */
async function tampered(replacements, body) {
  const saved = replacements.map(([object, key]) => [object, key, Object.getOwnPropertyDescriptor(object, key)]);
  try {
    for (const [object, key, descriptor] of replacements) { Object.defineProperty(object, key, { configurable: true, ...descriptor }); }
    return await body();
  } finally {
    for (const [object, key, descriptor] of saved) { Object.defineProperty(object, key, descriptor); }
  }
}
const REPLACED = [
  [Response.prototype, 'json', { value: never }],
  [Response.prototype, 'arrayBuffer', { value: never }],
  [Response.prototype, 'status', { get: () => 200 }],
  [Response.prototype, 'ok', { get: () => true }],
  [Response.prototype, 'body', { get: () => null }],
  [ReadableStream.prototype, 'getReader', { value: lie }],
  [ReadableStreamDefaultReader.prototype, 'read', { value: never }],
  [Blob.prototype, 'slice', { value: lie }],
  [Blob.prototype, 'arrayBuffer', { value: never }],
  [Object.getPrototypeOf(crypto), 'getRandomValues', { value: (bytes) => bytes }],
  [Number.prototype, 'toString', { value: () => 'x' }],
];

async function flushAll() {
  for (let i = 0; i < 20; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}
function setup(respond) {
  const win = makeWindow();
  const requests = [];
  win.fetch = (url, init) => {
    requests.push({ url, init: init || {} });
    return Promise.resolve(respond(url, init || {}));
  };
  const transport = recordingTransport();
  return { requests, transport, bridge: createWebBridge({ window: win, transport }) };
}

test('a download settles with its bytes when the page replaced the response, stream and reader members', async () => {
  const { bridge, transport } = setup(() => new Response(new Uint8Array([7, 8, 9]), { status: 200 }));
  await tampered(REPLACED, async () => {
    const p = bridge.call('File.open', null);
    await flushAll();
    const token = 'ab'.repeat(16);
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, binary: [token], data: { file: { $bridgeBinary: { token, size: 3 } } } });
    const settled = await Promise.race([p, new Promise((r) => setTimeout(() => r('not settled'), 2000))]);
    assert.notEqual(settled, 'not settled', 'the call settles');
    assert.deepEqual([...settled.file], [7, 8, 9]);
  });
});

test('a refused download settles with native\'s code read through the platform\'s json, not the page\'s', async () => {
  const { bridge, transport } = setup(() => new Response('{"code":"navigated"}', { status: 410 }));
  // Only Response's members: node's own json() reads the body through the public stream methods.
  await tampered(REPLACED.filter(([object]) => object === Response.prototype), async () => {
    const p = bridge.call('File.open', null);
    await flushAll();
    const token = 'cd'.repeat(16);
    bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, binary: [token], data: { file: { $bridgeBinary: { token, size: 3 } } } });
    await assert.rejects(p, { code: 'navigated' });
  });
});

test('a Blob upload in parts sends its bytes, and distinct tokens, when the page replaced Blob, Response, crypto and Number members', async () => {
  const { bridge, transport, requests } = setup(() => new Response(JSON.stringify({ code: 'ok', partBytes: 65536 }), { status: 200 }));
  const bytes = new Uint8Array(65536 + 5).map((_, i) => i % 251);
  await tampered(REPLACED, async () => {
    bridge.call('Save', { a: new Blob([bytes]), b: new Uint8Array([1]) });
    await flushAll();
  });
  const options = transport.messages[0].options;
  assert.notEqual(options.a.$bridgeBinary.token, options.b.$bridgeBinary.token, 'the platform\'s random bytes, not the page\'s');
  assert.match(options.a.$bridgeBinary.token, /^[0-9a-f]{32}$/, 'hex digits without the page\'s Number.prototype.toString');
  const parts = requests.filter((r) => r.url.includes(options.a.$bridgeBinary.token));
  assert.deepEqual(parts.map((r) => r.url.replace(/^.*\?/, '')), ['offset=0', 'offset=65536'], 'the second part went once the first was answered 200');
  const sent = Buffer.concat(parts.map((r) => Buffer.from(r.init.body)));
  assert.deepEqual([...sent], [...bytes]);
});

// Kind of fault: what a binary value holds read through the page's prototypes. The shim read a
// value's size and where its bytes are (`Blob.prototype.size`, `%TypedArray%.prototype.buffer`,
// `byteOffset`) with getters a page can replace, so a page could make it send other bytes, or
// fewer (found by attacking the fix above in WebKitGTK).
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);

test('a view uploads its own bytes when the page replaced %TypedArray%.prototype.buffer', async () => {
  const { bridge, transport, requests } = setup(() => new Response(JSON.stringify({ code: 'ok', partBytes: 65536 }), { status: 200 }));
  const value = new Uint8Array([1, 2, 3, 4]);
  const other = new Uint8Array([66, 66, 66, 66]).buffer;
  const realBuffer = Object.getOwnPropertyDescriptor(TypedArrayProto, 'buffer').get;
  await tampered([[TypedArrayProto, 'buffer', { get() { return this === value ? other : realBuffer.call(this); } }]], async () => {
    bridge.call('Save', { data: value });
    await flushAll();
  });
  const token = transport.messages[0].options.data.$bridgeBinary.token;
  const sent = Buffer.concat(requests.filter((r) => r.url.includes(token)).map((r) => Buffer.from(r.init.body)));
  assert.deepEqual([...sent], [1, 2, 3, 4], 'the bytes the page passed, not the ones a replaced getter named');
});

test('a subarray uploads its own bytes when the page replaced %TypedArray%.prototype.byteOffset', async () => {
  const { bridge, transport, requests } = setup(() => new Response(JSON.stringify({ code: 'ok', partBytes: 65536 }), { status: 200 }));
  const whole = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]);
  const value = whole.subarray(4, 8);
  const realOffset = Object.getOwnPropertyDescriptor(TypedArrayProto, 'byteOffset').get;
  await tampered([[TypedArrayProto, 'byteOffset', { get() { return this === value ? 0 : realOffset.call(this); } }]], async () => {
    bridge.call('Save', { data: value });
    await flushAll();
  });
  const token = transport.messages[0].options.data.$bridgeBinary.token;
  const sent = Buffer.concat(requests.filter((r) => r.url.includes(token)).map((r) => Buffer.from(r.init.body)));
  assert.deepEqual([...sent], [4, 5, 6, 7]);
});

test('a Blob uploads all its bytes when the page replaced Blob.prototype.size', async () => {
  const { bridge, transport, requests } = setup(() => new Response(JSON.stringify({ code: 'ok', partBytes: 65536 }), { status: 200 }));
  const bytes = new Uint8Array(3 * 65536).map((_, i) => i % 251);
  const blob = new Blob([bytes]);
  const realSize = Object.getOwnPropertyDescriptor(Blob.prototype, 'size').get;
  await tampered([[Blob.prototype, 'size', { get() { return this === blob ? 65536 + 1 : realSize.call(this); } }]], async () => {
    bridge.call('Save', { data: blob });
    await flushAll();
  });
  const fields = transport.messages[0].options.data.$bridgeBinary;
  const sent = Buffer.concat(requests.filter((r) => r.url.includes(fields.token)).map((r) => Buffer.from(r.init.body)));
  assert.equal(fields.size, bytes.length, 'declared size is the Blob\'s');
  assert.equal(sent.length, bytes.length, 'every byte of the Blob was sent');
});
