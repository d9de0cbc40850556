'use strict';
// Binary values read as streams (issue 26; docs/protocol.md, "Binary values", "Streams in the
// page"): the call setting `binary: "stream"` turns each binary value of the result and its
// progress into `{stream, size, type}`, a ReadableStream that fetches the bytes as the page reads
// them (a fake fetch here, whose body reader counts its reads) and ends exactly once.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const TOKEN = 'a1'.repeat(16);

/**
 * A response body whose reader hands out `chunks` one per read (then done, or `end` — a function
 * returning a rejected promise — when given), counting reads; an abort of `signal` rejects a
 * pending or later read, as fetch does.
 */
function body(chunks, signal, end) {
  const state = { reads: 0, cancelled: false };
  let i = 0;
  state.getReader = () => ({
    read() {
      state.reads++;
      if (signal.aborted) { return Promise.reject(new DOMException('aborted', 'AbortError')); }
      if (i < chunks.length) { return Promise.resolve({ done: false, value: chunks[i++] }); }
      if (end) { return end(); }
      return Promise.resolve({ done: true, value: undefined });
    },
    cancel() { state.cancelled = true; return Promise.resolve(); },
  });
  return state;
}

/** The chunks of `chunks` from byte `offset` on, at most `limit` bytes (a part, as native answers `?offset=`). */
function slice(chunks, offset, limit) {
  const out = [];
  let at = 0;
  for (const c of chunks) {
    const from = Math.max(0, offset - at);
    const to = Math.min(c.length, offset + limit - at);
    if (to > from) { out.push(c.subarray(from, to)); }
    at += c.length;
  }
  return out;
}

/**
 * A bridge with a recording transport and a fetch answered by `respond(init, url)` (default: the
 * chunks of `chunks`; a request with `?offset=<n>` gets them from byte n on, at most
 * `options.partBytes` bytes, as native answers a part).
 */
function setup(options = {}) {
  const win = makeWindow();
  const requests = [];
  const bodies = [];
  win.fetch = (url, init) => {
    requests.push({ url, init });
    if (options.respond) { return options.respond(init, url); }
    const m = /\?offset=(\d+)$/.exec(url);
    const chunks = m ? slice(options.chunks || [], Number(m[1]), options.partBytes || Infinity) : options.chunks || [];
    const b = body(chunks, init.signal, options.end);
    bodies.push(b);
    return Promise.resolve({ ok: true, status: 200, body: b });
  };
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { win, bridge, transport, requests, bodies };
}
async function flushAll() {
  for (let i = 0; i < 10; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}
/** Calls `task` with `settings`, then answers it with `data` after announcing `tokens`. */
async function answered(t, task, settings, data, tokens = [TOKEN]) {
  const p = t.bridge.call(task, null, settings);
  await flushAll();
  t.bridge._receive({ v: 1, kind: 'event', name: 'webbridge.binary', data: { tokens } });
  t.bridge._receive({ v: 1, kind: 'reply', id: t.transport.messages[0].id, ok: true, data });
  return p;
}
const placeholder = (size, type, token = TOKEN) => ({ $bridgeBinary: size === undefined ? { token } : { token, size, ...(type ? { type } : {}) } });
/** Reads a stream to its end: {chunks, bytes} or {error}. */
async function readAll(stream) {
  const reader = stream.getReader();
  const chunks = [];
  try {
    for (;;) {
      const step = await reader.read();
      if (step.done) { break; }
      chunks.push(step.value);
    }
  } catch (error) { return { chunks, error }; }
  return { chunks, bytes: chunks.reduce((n, c) => n + c.length, 0) };
}

test('binary: "stream" settles the call at once with {stream, size, type}; nothing is fetched until the page reads', async () => {
  const t = setup({ chunks: [new Uint8Array([1, 2]), new Uint8Array([3])] });
  const data = await answered(t, 'File.open', { binary: 'stream' }, { file: placeholder(3, 'application/pdf'), name: 'a.pdf' });
  assert.equal(data.name, 'a.pdf');
  assert.ok(data.file.stream instanceof ReadableStream);
  assert.equal(data.file.size, 3);
  assert.equal(data.file.type, 'application/pdf');
  assert.ok(Object.isFrozen(data.file));
  await flushAll();
  assert.equal(t.requests.length, 0, 'no fetch before the first read');
  assert.equal(t.bridge.pendingCount(), 0);
  const { chunks, bytes } = await readAll(data.file.stream);
  assert.equal(bytes, 3);
  assert.deepEqual(chunks.map((c) => [...c]), [[1, 2], [3]]);
  assert.equal(t.requests.length, 1, 'native answered the whole value in its first part');
  assert.equal(t.requests[0].url, 'webbridge-binary://transfer/' + TOKEN + '?offset=0', 'a value of known size is read in parts');
  assert.equal(t.requests[0].init.method, 'GET');
});

test('a value of known size is read in parts: the next part is asked for at the next offset only once the page read the one before', async () => {
  const t = setup({ chunks: [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5])], partBytes: 2 });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(5));
  const reader = data.stream.getReader();
  assert.deepEqual([...(await reader.read()).value], [1, 2]);
  await flushAll();
  assert.equal(t.requests.length, 1, 'no part asked for ahead of the page');
  assert.deepEqual([...(await reader.read()).value], [3]);
  await flushAll();
  assert.equal(t.requests.length, 2);
  assert.deepEqual([...(await reader.read()).value], [4], 'the second part: bytes 2 and 3');
  assert.deepEqual([...(await reader.read()).value], [5]);
  assert.equal((await reader.read()).done, true);
  assert.deepEqual(t.requests.map((r) => r.url.split('?')[1]), ['offset=0', 'offset=2', 'offset=4']);
  assert.ok(t.requests.every((r) => r.init.method === 'GET' && r.init.signal instanceof AbortSignal));
});

test('a part native refuses errors the stream with its code, and no later part is asked for', async () => {
  let n = 0;
  const t = setup({
    respond: () => (n++ === 0
      ? Promise.resolve({ ok: true, status: 200, body: body([new Uint8Array(2)], new AbortController().signal) })
      : Promise.resolve({ ok: false, status: 409, json: () => Promise.resolve({ code: 'invalid_options' }) })),
  });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(4));
  const { chunks, error } = await readAll(data.stream);
  assert.equal(chunks.length, 1);
  assert.equal(error.code, 'invalid_options');
  await flushAll();
  assert.deepEqual(t.requests.map((r) => r.url.split('?')[1]), ['offset=0', 'offset=2', 'cancel'], 'native is told the value ended');
});

test('reader.cancel() mid-part aborts the part and tells native (?cancel), which may have sent the whole part already; no further part', async () => {
  const t = setup({ chunks: [new Uint8Array(2), new Uint8Array(2)], partBytes: 2 });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(4));
  const reader = data.stream.getReader();
  assert.equal((await reader.read()).value.length, 2);
  await reader.cancel();
  await flushAll();
  assert.deepEqual(t.requests.map((r) => r.url.split('?')[1]), ['offset=0', 'cancel']);
  assert.equal(t.requests[0].init.signal.aborted, true, 'the part\'s fetch is aborted');
  assert.equal(t.requests[1].init.method, 'GET', 'a simple request: no preflight');
});

test('a stream read to its end tells native nothing more; one of unknown size is never cancelled by query', async () => {
  const t = setup({ chunks: [new Uint8Array(2), new Uint8Array(2)], partBytes: 2 });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(4));
  assert.equal((await readAll(data.stream)).bytes, 4);
  await flushAll();
  assert.deepEqual(t.requests.map((r) => r.url.split('?')[1]), ['offset=0', 'offset=2']);
  const u = setup({ chunks: [new Uint8Array(2), new Uint8Array(2)] });
  const other = await answered(u, 'A', { binary: 'stream' }, placeholder(undefined));
  const reader = other.stream.getReader();
  await reader.read();
  await reader.cancel();
  await flushAll();
  assert.deepEqual(u.requests.map((r) => r.url.split('?')[1]), [undefined], 'aborting its one GET ends it');
});

test('the default (and binary: "bytes") stays one Uint8Array; an unknown binary setting fails the call', async () => {
  const t = setup({ chunks: [new Uint8Array([1, 2, 3])] });
  const data = await answered(t, 'A', { binary: 'bytes' }, placeholder(3));
  assert.ok(data instanceof Uint8Array);
  const u = setup();
  await assert.rejects(u.bridge.call('A', null, { binary: 'streams' }), { code: 'invalid_message' });
  assert.equal(u.transport.messages.length, 0);
});

test('backpressure: the transport body is read one chunk per page read, never ahead', async () => {
  const t = setup({ chunks: [new Uint8Array(4), new Uint8Array(4), new Uint8Array(4), new Uint8Array(4)] });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(16));
  const reader = data.stream.getReader();
  await flushAll();
  assert.equal(t.requests.length, 0);
  assert.equal((await reader.read()).value.length, 4);
  await flushAll();
  assert.equal(t.bodies[0].reads, 1, 'one read of the body for one read of the page');
  await reader.read();
  await flushAll();
  assert.equal(t.bodies[0].reads, 2);
  reader.releaseLock();
});

test('download progress reports each chunk as the page reads it, over the values of the reply', async () => {
  const progress = [];
  const t = setup({ chunks: [new Uint8Array(2), new Uint8Array(3)] });
  const data = await answered(t, 'A', { binary: 'stream', onDownloadProgress: (p) => progress.push(p) }, placeholder(5));
  assert.deepEqual(progress, []);
  await readAll(data.stream);
  assert.deepEqual(progress, [{ loaded: 2, total: 5 }, { loaded: 5, total: 5 }]);
});

test('a body shorter than size errors the stream invalid_result, once; a later abort changes nothing', async () => {
  const controller = new AbortController();
  const t = setup({ chunks: [new Uint8Array(2)] });
  const data = await answered(t, 'A', { binary: 'stream', signal: controller.signal }, placeholder(5));
  const reader = data.stream.getReader();
  assert.equal((await reader.read()).value.length, 2);
  await assert.rejects(reader.read(), (e) => e.name === 'WebBridgeError' && e.code === 'invalid_result' && /early/.test(e.message));
  controller.abort();
  await assert.rejects(reader.read(), { code: 'invalid_result' });
  await assert.rejects(reader.closed, { code: 'invalid_result' });
});

test('a body longer than size errors the stream invalid_result and aborts the fetch; the extra bytes never reach the page', async () => {
  const t = setup({ chunks: [new Uint8Array(3), new Uint8Array(3)] });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(4));
  const { chunks, error } = await readAll(data.stream);
  assert.equal(error.code, 'invalid_result');
  assert.deepEqual(chunks.map((c) => c.length), [3]);
  assert.equal(t.requests[0].init.signal.aborted, true);
});

test('reader.cancel() mid-stream aborts the fetch (native sees cancellation) and ends the stream once', async () => {
  const progress = [];
  const t = setup({ chunks: [new Uint8Array(2), new Uint8Array(2), new Uint8Array(2)] });
  const data = await answered(t, 'A', { binary: 'stream', onDownloadProgress: (p) => progress.push(p) }, placeholder(6));
  const reader = data.stream.getReader();
  await reader.read();
  assert.equal(t.requests[0].init.signal.aborted, false);
  await reader.cancel('enough');
  assert.equal(t.requests[0].init.signal.aborted, true);
  await flushAll();
  assert.deepEqual(await reader.closed, undefined);
  assert.equal(t.bodies[0].reads, 1, 'nothing read after the cancel');
  assert.deepEqual(progress, [{ loaded: 2, total: 6 }]);
});

test('the call\'s AbortSignal aborting mid-stream errors the stream cancelled and aborts the fetch, after the call settled', async () => {
  const controller = new AbortController();
  const t = setup({ chunks: [new Uint8Array(2), new Uint8Array(2)] });
  const data = await answered(t, 'A', { binary: 'stream', signal: controller.signal }, placeholder(4));
  const reader = data.stream.getReader();
  await reader.read();
  controller.abort();
  assert.equal(t.requests[0].init.signal.aborted, true);
  await assert.rejects(reader.read(), (e) => e.name === 'WebBridgeError' && e.code === 'cancelled');
  assert.equal(t.transport.messages.filter((m) => m.kind === 'cancel').length, 0, 'the call had settled: no cancel message');
});

test('a signal that aborts before the stream is read errors it cancelled without fetching its bytes; native is told (?cancel)', async () => {
  const controller = new AbortController();
  const t = setup({ chunks: [new Uint8Array(2)] });
  const data = await answered(t, 'A', { binary: 'stream', signal: controller.signal }, placeholder(2));
  controller.abort();
  await assert.rejects(data.stream.getReader().read(), { code: 'cancelled' });
  await flushAll();
  assert.deepEqual(t.requests.map((r) => r.url.split('?')[1]), ['cancel'], 'no bytes fetched; the offer is freed now, not after its lifetime');
});

test('reader.cancel() of a stream never read, of unknown size too, tells native (?cancel) once', async () => {
  const t = setup({ chunks: [new Uint8Array(2)] });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(undefined));
  await data.stream.cancel();
  await data.stream.cancel().catch(() => {});
  await flushAll();
  assert.deepEqual(t.requests.map((r) => r.url), ['webbridge-binary://transfer/' + TOKEN + '?cancel']);
});

test('native ending the body (a read that fails) errors the stream unavailable; a refused download keeps native\'s code', async () => {
  const t = setup({ chunks: [new Uint8Array(1)], end: () => Promise.reject(new TypeError('Load failed')) });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(5));
  const { chunks, error } = await readAll(data.stream);
  assert.equal(chunks.length, 1);
  assert.equal(error.code, 'unavailable');

  const u = setup({ respond: () => Promise.resolve(new Response('{"code":"navigated"}', { status: 410 })) });
  const gone = await answered(u, 'A', { binary: 'stream' }, placeholder(5));
  assert.equal((await readAll(gone.stream)).error.code, 'navigated');

  const v = setup({ respond: () => Promise.reject(new TypeError('no scheme')) });
  const none = await answered(v, 'A', { binary: 'stream' }, placeholder(5));
  assert.equal((await readAll(none.stream)).error.code, 'unavailable');
});

test('a value of unknown size (no size in the placeholder) closes at the end of the body, size null', async () => {
  const t = setup({ chunks: [new Uint8Array(3), new Uint8Array(4)] });
  const data = await answered(t, 'A', { binary: 'stream' }, placeholder(undefined));
  assert.equal(data.size, null);
  assert.equal(data.type, null);
  assert.equal((await readAll(data.stream)).bytes, 7);
  assert.deepEqual(t.requests.map((r) => r.url), ['webbridge-binary://transfer/' + TOKEN], 'one GET, not in parts: the page could not tell where it ends');
});

test('binary progress values arrive as streams at once, before the reply; the token is used once', async () => {
  const t = setup({ chunks: [new Uint8Array([9])] });
  const seen = [];
  const p = t.bridge.call('A', null, { binary: 'stream', onProgress: (d) => seen.push(d) });
  await flushAll();
  const id = t.transport.messages[0].id;
  t.bridge._receive({ v: 1, kind: 'event', name: 'webbridge.binary', data: { tokens: [TOKEN] } });
  t.bridge._receive({ v: 1, kind: 'progress', id, data: { part: placeholder(1) } });
  assert.equal(seen.length, 1);
  assert.ok(seen[0].part.stream instanceof ReadableStream);
  t.bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: placeholder(1) });
  assert.deepEqual(await p, placeholder(1), 'the token was used up by the progress value');
  assert.deepEqual([...(await readAll(seen[0].part.stream)).chunks[0]], [9]);
});

test('a stream the page never reads holds no call and fetches nothing (native frees the offer when it expires)', async () => {
  const t = setup({ chunks: [new Uint8Array(1)] });
  const data = await answered(t, 'A', { binary: 'stream' }, { a: placeholder(1), b: placeholder(1, null, 'b2'.repeat(16)) }, [TOKEN, 'b2'.repeat(16)]);
  assert.ok(data.a.stream && data.b.stream);
  await flushAll();
  assert.equal(t.requests.length, 0);
  assert.deepEqual(t.bridge._sizes(), { pending: 0, queued: 0, listeners: 0, handlers: 0, nativeCalls: 0, earlyCancels: 0, mockCalls: 0 });
});

test('mock mode gives the same shape: a stream over the mock\'s bytes, in copies, with progress and cancel', async () => {
  const win = makeWindow();
  let fetches = 0;
  win.fetch = () => { fetches++; throw new Error('no byte transport in a browser'); };
  const bridge = createWebBridge({ window: win });
  const source = new Uint8Array(150000).fill(7);
  bridge.mock({
    Make: () => ({ big: source, blob: new Blob(['hi'], { type: 'text/plain' }), again: source, spare: source }),
  });
  const progress = [];
  const data = await bridge.call('Make', null, { binary: 'stream', onDownloadProgress: (p) => progress.push(p.loaded) });
  assert.equal(data.big.size, 150000);
  assert.equal(data.blob.type, 'text/plain');
  const big = await readAll(data.big.stream);
  assert.equal(big.bytes, 150000);
  assert.deepEqual(big.chunks.map((c) => c.length), [65536, 65536, 18928]);
  assert.notEqual(big.chunks[0].buffer, source.buffer, 'copies, as bytes that crossed the bridge');
  assert.equal(new TextDecoder().decode((await readAll(data.blob.stream)).chunks[0]), 'hi');
  const reader = data.again.stream.getReader();
  await reader.read();
  await reader.cancel();
  assert.deepEqual(await reader.read(), { done: true, value: undefined });
  assert.equal(progress[progress.length - 1], 150000 + 2 + 65536);
  await data.spare.stream.cancel();
  assert.equal(fetches, 0, 'a mock stream cancelled unread tells no native side');
});
