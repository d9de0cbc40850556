'use strict';
// Binary values in mock mode (WebBridge.mock; issue 26): a mock gets the page's binary values as
// the page gave them, and the bytes a mock answers with reach the page as the byte transport
// would give them (a Uint8Array copy, download progress), without any fetch.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

/** A browser page (no native channel) whose fetch fails the test if it is ever used. */
function browser() {
  const win = makeWindow();
  const fetches = [];
  win.fetch = (url) => { fetches.push(url); return Promise.reject(new Error('no byte transport in a browser')); };
  const bridge = createWebBridge({ window: win });
  return { win, bridge, fetches };
}
async function flushAll() {
  for (let i = 0; i < 10; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}

test('a mock receives the page\'s binary values as given: the same typed array, ArrayBuffer, DataView and Blob; look-alikes stay data', async () => {
  const { bridge, fetches } = browser();
  let seen = null;
  bridge.mock({ Save: (options) => { seen = options; return 'saved'; } });
  const view = new Uint8Array([9, 1, 2, 3, 9]).subarray(1, 4);
  const buffer = new ArrayBuffer(4);
  const dataView = new DataView(new ArrayBuffer(2));
  const blob = new Blob([new Uint8Array([7, 7])], { type: 'image/png' });
  const progress = [];
  const result = await bridge.call('Save', {
    name: 'a.png', view, nested: [{ buffer }, dataView], blob, meta: { $bridgeBinary: { token: '0'.repeat(32) } },
  }, { onUploadProgress: (p) => progress.push(p) });
  assert.equal(result, 'saved');
  assert.equal(seen.name, 'a.png');
  assert.equal(seen.view, view, 'the same object, not a placeholder');
  assert.equal(seen.nested[0].buffer, buffer);
  assert.equal(seen.nested[1], dataView);
  assert.equal(seen.blob, blob);
  assert.deepEqual(seen.meta, { $bridgeBinary: { token: '0'.repeat(32) } }, 'a page object with the key is data');
  assert.deepEqual(progress, [{ loaded: 11, total: 11 }]);
  assert.deepEqual(fetches, [], 'no byte transport in mock mode');
});

test('calls queued before mock() also hand their binary values to the mock', async () => {
  const { bridge } = browser();
  const bytes = new Uint8Array([1, 2]);
  const p = bridge.call('Later', { file: bytes });
  let seen = null;
  bridge.mock({ Later: (options) => { seen = options.file; return null; } });
  await p;
  assert.equal(seen, bytes);
});

test('a mock result\'s bytes reach the page as the transport gives them: a Uint8Array copy, with download progress', async () => {
  const { bridge, fetches } = browser();
  const source = new Uint8Array([5, 6, 7, 8]);
  bridge.mock({
    Make: () => ({
      view: source.subarray(1, 3),
      buffer: new Uint8Array([1, 2, 3]).buffer,
      blob: new Blob([new Uint8Array([4, 4, 4, 4, 4])], { type: 'application/pdf' }),
      list: [new DataView(new ArrayBuffer(2))],
      note: 'made',
      echo: { $bridgeBinary: { token: 'f'.repeat(32) } },
    }),
  });
  const progress = [];
  const data = await bridge.call('Make', null, { onDownloadProgress: (p) => progress.push(p) });
  assert.ok(data.view instanceof Uint8Array);
  assert.deepEqual([...data.view], [6, 7]);
  assert.notEqual(data.view.buffer, source.buffer, 'a copy, as bytes that crossed the bridge');
  assert.ok(data.buffer instanceof Uint8Array, 'an ArrayBuffer arrives as a Uint8Array, like native Data');
  assert.deepEqual([...data.buffer], [1, 2, 3]);
  assert.ok(data.blob instanceof Uint8Array, 'a Blob arrives as its bytes');
  assert.deepEqual([...data.blob], [4, 4, 4, 4, 4]);
  assert.deepEqual([...data.list[0]], [0, 0]);
  assert.equal(data.note, 'made');
  assert.deepEqual(data.echo, { $bridgeBinary: { token: 'f'.repeat(32) } }, 'an unannounced look-alike stays data');
  assert.equal(progress.length >= 1, true);
  assert.deepEqual(progress[progress.length - 1], { loaded: 12, total: 12 });
  assert.deepEqual(fetches, []);
  assert.equal(bridge._sizes().mockCalls, 0);
});

test('binary progress from a mock reaches onProgress as a Uint8Array, before the reply', async () => {
  const { bridge } = browser();
  bridge.mock({
    Stream: async (options, context) => {
      assert.equal(context.progress({ chunk: new Uint8Array([1, 2]), n: 1 }), true);
      await flushAll();
      return 'done';
    },
  });
  const seen = [];
  const result = await bridge.call('Stream', null, { onProgress: (d) => seen.push(d) });
  assert.equal(result, 'done');
  assert.equal(seen.length, 1);
  assert.ok(seen[0].chunk instanceof Uint8Array);
  assert.deepEqual([...seen[0].chunk], [1, 2]);
  assert.equal(seen[0].n, 1);
});

test('a mock result of bare bytes resolves the call with a Uint8Array', async () => {
  const { bridge } = browser();
  bridge.mock({ Bytes: async () => new Blob(['hi']) });
  const data = await bridge.call('Bytes');
  assert.ok(data instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(data), 'hi');
});
