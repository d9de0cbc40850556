'use strict';
// Bytes in events (issue 26, item 1): native lists an event's download tokens in the event's own
// envelope (`binary`, written only by native), as a reply or progress does; the shim records them
// before it looks for placeholders, and hands events to listeners in the order native sent them,
// an event with bytes holding the ones after it until its bytes were read.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const FIXTURES = path.join(__dirname, '..', '..', 'Tests', 'Fixtures', 'binary');
const fixture = (name) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));

/**
 * A bridge whose fetch answers each token from `answers` (token -> bytes, or an Error to fail),
 * each after `gate(token)` resolves (default: at once).
 */
function setup(answers, gate = () => Promise.resolve()) {
  const win = makeWindow();
  const requests = [];
  win.fetch = (url) => {
    requests.push(url);
    const token = /transfer\/([0-9a-f]{32})/.exec(url)[1];
    return gate(token).then(() => {
      const answer = answers[token];
      if (answer instanceof Error) { throw answer; }
      return new Response(new Uint8Array(answer), { status: 200 });
    });
  };
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { win, bridge, requests, transport };
}
async function flushAll() {
  for (let i = 0; i < 20; i++) { await settleMicrotasks(10); await new Promise((r) => setImmediate(r)); }
}
const placeholder = (token, size) => ({ $bridgeBinary: { token, size } });

test('fixture event-with-envelope-tokens: listeners get the envelope token\'s bytes as a Uint8Array; a token inside data stays data', async () => {
  const f = fixture('event-with-envelope-tokens.json');
  assert.equal(f.direction, 'native-to-page');
  assert.equal(f.kind, f.message.kind);
  const token = f.message.binary[0];
  const { bridge, requests } = setup({ [token]: [1, 2, 3] });
  const seen = [];
  bridge.on('camera.photo', (data) => seen.push(data));
  bridge._receive(f.message);
  await flushAll();
  assert.equal(seen.length, 1);
  assert.ok(seen[0].photo instanceof Uint8Array);
  assert.deepEqual([...seen[0].photo], [1, 2, 3]);
  assert.deepEqual(seen[0].echo, f.message.data.echo, 'a token listed only inside data stays data');
  assert.deepEqual(seen[0].binary, f.message.data.binary);
  assert.equal(requests.length, 1);
});

test('events reach listeners in the order native sent them: a plain event waits for the bytes of the one before it', async () => {
  const a = 'a1'.repeat(16);
  const b = 'b2'.repeat(16);
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const { bridge } = setup({ [a]: [1], [b]: [2] }, (token) => (token === a ? held : Promise.resolve()));
  const seen = [];
  bridge.on('chunk', (data) => seen.push(data instanceof Uint8Array ? [...data] : data));
  bridge._receive({ v: 1, kind: 'event', name: 'chunk', binary: [a], data: placeholder(a, 1) });
  bridge._receive({ v: 1, kind: 'event', name: 'chunk', data: 'plain' });
  bridge._receive({ v: 1, kind: 'event', name: 'chunk', binary: [b], data: placeholder(b, 1) });
  await flushAll();
  assert.deepEqual(seen, [], 'nothing overtakes the event whose bytes are being read');
  release();
  await flushAll();
  assert.deepEqual(seen, [[1], 'plain', [2]]);
});

test('an event whose bytes cannot be read is reported and dropped; the events after it go on', async () => {
  const a = 'a1'.repeat(16);
  const { win, bridge } = setup({ [a]: new Error('network') });
  const seen = [];
  bridge.on('x', (data) => seen.push(data));
  bridge._receive({ v: 1, kind: 'event', name: 'x', binary: [a], data: { file: placeholder(a, 1) } });
  bridge._receive({ v: 1, kind: 'event', name: 'x', data: 2 });
  await flushAll();
  assert.deepEqual(seen, [2]);
  assert.ok(win.console.errors.some((args) => args.join(' ').includes('binary values of event x failed')),
    JSON.stringify(win.console.errors));
});

test('an event with bytes nobody listens to reads nothing and gives them back; a placeholder without an envelope token stays data', async () => {
  const a = 'a1'.repeat(16);
  const { bridge, requests } = setup({ [a]: [1] });
  bridge._receive({ v: 1, kind: 'event', name: 'unheard', binary: [a], data: placeholder(a, 1) });
  await flushAll();
  assert.deepEqual(requests, ['webbridge-binary://transfer/' + a + '?cancel']);
  requests.length = 0;
  const seen = [];
  bridge.on('x', (data) => seen.push(data));
  const other = 'c3'.repeat(16);
  bridge._receive({ v: 1, kind: 'event', name: 'x', data: placeholder(other, 1) });
  bridge._receive({ v: 1, kind: 'event', name: 'x', binary: 'not an array', data: placeholder(other, 1) });
  await flushAll();
  assert.deepEqual(seen, [placeholder(other, 1), placeholder(other, 1)]);
  assert.equal(requests.length, 0);
});

// Kind of fault (found by an attack in real WebKitGTK): a message native sent after an event
// overtook it. An event whose bytes were being read reached its listeners after the reply of the
// call whose task emitted it had settled the call, and so did a plain event behind it; before
// events carried bytes, every event reached its listeners before the replies sent after it.
test('a reply, a progress value and a native call sent after an event with bytes wait until it reached its listeners', async () => {
  const a = 'a1'.repeat(16);
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const { bridge, transport } = setup({ [a]: [1, 2] }, () => held);
  const log = [];
  bridge.on('ev', (d) => log.push('ev:' + (d instanceof Uint8Array ? [...d].join() : d)));
  bridge.handle('ask', () => { log.push('native call'); return 'answered'; });
  const call = bridge.call('T', null, { onProgress: (p) => log.push('progress:' + p) }).then((v) => log.push('reply:' + v));
  await flushAll();
  const id = transport.messages.find((m) => m.kind === 'call').id;
  bridge._receive({ v: 1, kind: 'event', name: 'ev', data: 'first' });
  bridge._receive({ v: 1, kind: 'event', name: 'ev', binary: [a], data: placeholder(a, 2) });
  bridge._receive({ v: 1, kind: 'event', name: 'ev', data: 'third' });
  bridge._receive({ v: 1, kind: 'progress', id, data: 'p' });
  bridge._receive({ v: 1, kind: 'call', id: 'n-1', task: 'ask', options: null });
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' });
  await flushAll();
  assert.deepEqual(log, ['ev:first'], 'nothing overtakes the event whose bytes are being read');
  release();
  await call;
  await flushAll();
  assert.deepEqual(log, ['ev:first', 'ev:1,2', 'ev:third', 'progress:p', 'native call', 'reply:done']);
  const answer = transport.messages.find((m) => m.kind === 'reply' && m.id === 'n-1');
  assert.ok(answer && answer.ok === true, JSON.stringify(transport.messages));
});
