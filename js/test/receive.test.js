'use strict';
// WebBridge._receive: accepts objects and JSON text, ignores garbage and unknown ids, never throws.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, recordingTransport } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

function setup() {
  const win = makeWindow();
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { win, transport, bridge };
}

const GARBAGE = [
  undefined, null, 0, 1, -1, NaN, Infinity, true, false, '', ' ', '{', '}', '[', 'null', '42', '"reply"',
  '{"kind":', '[1,2]', 'undefined', '\u2028', Symbol('x'), 10n, () => {}, [], [{ kind: 'reply' }],
  {}, { v: 1 }, { kind: null }, { kind: 42 }, { kind: 'unknown' }, { kind: 'reply' }, { kind: 'reply', id: 5 },
  { kind: 'reply', id: {} }, { kind: 'progress' }, { kind: 'event' }, { kind: 'event', name: 7 },
  { kind: 'call' }, { kind: 'call', task: 5 }, { kind: 'cancel' }, { kind: 'cancel', id: ['n-1'] },
  { kind: '__proto__' }, { kind: 'constructor' }, { kind: 'toString' }, { kind: 'hasOwnProperty' },
  { kind: 'reply', id: '__proto__', ok: true }, { kind: 'event', name: '__proto__', data: 1 },
  { kind: 'event', name: 'constructor' }, { kind: 'call', id: 'n-1', task: 'constructor' },
  { kind: 'call', id: 'n-2', task: '__proto__' }, { kind: 'cancel', id: 'toString' },
  JSON.parse('{"__proto__":{"kind":"reply"}}'), Object.create(null),
];

test('_receive with garbage (numbers, null, "{", objects without kind, prototype names) never throws', () => {
  const { bridge, win } = setup();
  GARBAGE.forEach((g, index) => {
    assert.doesNotThrow(() => bridge._receive(g), `GARBAGE[${index}]`);
  });
  assert.equal(bridge._receive('{'), undefined);
  assert.deepEqual(win.console.errors, [], 'garbage is ignored silently');
});

test('_receive with garbage leaves pending calls untouched and still resolvable', async () => {
  const { bridge, transport } = setup();
  const p = bridge.call('t', 1);
  for (const g of GARBAGE) { bridge._receive(g); }
  assert.equal(bridge.pendingCount(), 1);
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 'ok' });
  assert.equal(await p, 'ok');
});

test('unknown-task calls from native named like Object.prototype members get unknown_task', () => {
  const { bridge, transport } = setup();
  bridge._receive({ v: 1, kind: 'call', id: 'n-1', task: 'constructor' });
  bridge._receive({ v: 1, kind: 'call', id: 'n-2', task: '__proto__' });
  assert.deepEqual(transport.messages.map((m) => [m.id, m.ok, m.error.code]), [
    ['n-1', false, 'unknown_task'], ['n-2', false, 'unknown_task'],
  ]);
});

test('_receive accepts the same message as an object or as JSON text', async () => {
  const { bridge, transport } = setup();
  const a = bridge.call('t', 1);
  const b = bridge.call('t', 2);
  const [ida, idb] = transport.messages.map((m) => m.id);
  bridge._receive({ v: 1, kind: 'reply', id: ida, ok: true, data: { s: "it's \"x\"\n" } });
  bridge._receive(JSON.stringify({ v: 1, kind: 'reply', id: idb, ok: true, data: { s: "it's \"x\"\n" } }));
  assert.deepEqual(await a, await b);
});

test('messages with another protocol version are ignored; a missing v means 1', async () => {
  const { bridge, transport } = setup();
  const p = bridge.call('t', 1);
  const id = transport.messages[0].id;
  bridge._receive({ v: 2, kind: 'reply', id, ok: true, data: 'v2' });
  bridge._receive({ v: '1', kind: 'reply', id, ok: true, data: 'string v' });
  assert.equal(bridge.pendingCount(), 1);
  bridge._receive({ kind: 'reply', id, ok: true, data: 'no v' });
  assert.equal(await p, 'no v');
});

test('replies and progress for unknown ids are ignored silently', () => {
  const { bridge, win } = setup();
  bridge._receive({ v: 1, kind: 'reply', id: 'nope-1', ok: true, data: 1 });
  bridge._receive({ v: 1, kind: 'progress', id: 'nope-1', data: 1 });
  bridge._receive({ v: 1, kind: 'cancel', id: 'n-404' });
  assert.deepEqual(win.console.errors, []);
  assert.equal(bridge.pendingCount(), 0);
});

test('a reply with data absent delivers null, not undefined', () => {
  const { bridge, transport } = setup();
  const seen = [];
  bridge.call('ping', null, (r) => seen.push(r));
  bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true });
  assert.deepEqual(seen, [{ ok: true, data: null }]);
  assert.ok(Object.prototype.hasOwnProperty.call(seen[0], 'data'));
});

test('R20 progress before the final reply: callback form gets each progress in order, entry removed after the reply, stray reply ignored', () => {
  const { bridge, transport } = setup();
  const progress = [];
  const finals = [];
  bridge.call('download', { file: 'a' }, { onProgress: (d) => progress.push(d), callback: (r) => finals.push(r) });
  const id = transport.messages[0].id;
  bridge._receive({ v: 1, kind: 'progress', id, data: { pct: 10 } });
  bridge._receive(JSON.stringify({ v: 1, kind: 'progress', id, data: { pct: 60 } }));
  assert.equal(bridge.pendingCount(), 1, 'progress is not final');
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: { pct: 100 } });
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: { pct: 100, stray: true } });
  bridge._receive({ v: 1, kind: 'progress', id, data: { pct: 999 } });
  assert.deepEqual(progress, [{ pct: 10 }, { pct: 60 }]);
  assert.deepEqual(finals, [{ ok: true, data: { pct: 100 } }]);
  assert.equal(bridge.pendingCount(), 0);
  assert.deepEqual(bridge._sizes(), { pending: 0, queued: 0, listeners: 0, handlers: 0, nativeCalls: 0, earlyCancels: 0, mockCalls: 0 });
});

test('R20 a reply is final by default: promise form settles on the first reply even after progress', async () => {
  const { bridge, transport } = setup();
  const progress = [];
  const p = bridge.call('download', null, { onProgress: (d) => progress.push(d) });
  const id = transport.messages[0].id;
  for (let pct = 0; pct <= 90; pct += 30) { bridge._receive({ v: 1, kind: 'progress', id, data: { pct } }); }
  bridge._receive({ v: 1, kind: 'reply', id, ok: false, error: { code: 'task_failed', message: 'disk full' } });
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'stray' });
  await assert.rejects(p, (err) => err.code === 'task_failed' && err.message === 'disk full');
  assert.deepEqual(progress.map((d) => d.pct), [0, 30, 60, 90]);
  assert.equal(bridge.pendingCount(), 0);
});

test('an onProgress that throws is reported and later progress and the reply still arrive', () => {
  const { bridge, transport, win } = setup();
  const seen = [];
  bridge.call('dl', null, {
    onProgress: (d) => { seen.push(d); if (d === 1) { throw new Error('progress boom'); } },
    callback: (r) => seen.push(r.data),
  });
  const id = transport.messages[0].id;
  bridge._receive({ v: 1, kind: 'progress', id, data: 1 });
  bridge._receive({ v: 1, kind: 'progress', id, data: 2 });
  bridge._receive({ v: 1, kind: 'reply', id, ok: true, data: 'done' });
  assert.deepEqual(seen, [1, 2, 'done']);
  assert.equal(win.console.errors.length, 1);
});
