'use strict';
// Native events (on/off) and native->page calls (handle): replies, errors, cancellation.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, makeWindow, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

function setup() {
  const win = makeWindow();
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  return { win, transport, bridge };
}
const event = (name, data) => ({ v: 1, kind: 'event', name, data });
const nativeCall = (id, task, options) => ({ v: 1, kind: 'call', id, task, options });

test('on delivers event data to every listener of that name, in registration order', () => {
  const { bridge } = setup();
  const seen = [];
  bridge.on('cart.updated', (d) => seen.push(['a', d]));
  bridge.on('cart.updated', (d) => seen.push(['b', d]));
  bridge.on('other', (d) => seen.push(['other', d]));
  bridge._receive(event('cart.updated', { count: 3 }));
  bridge._receive({ v: 1, kind: 'event', name: 'cart.updated' });
  assert.deepEqual(seen, [['a', { count: 3 }], ['b', { count: 3 }], ['a', null], ['b', null]]);
});

test('off removes one listener; the function returned by on also removes it; empty names leave no entry', () => {
  const { bridge } = setup();
  const seen = [];
  const a = (d) => seen.push(['a', d]);
  const b = (d) => seen.push(['b', d]);
  bridge.on('e', a);
  const stopB = bridge.on('e', b);
  bridge.off('e', a);
  bridge._receive(event('e', 1));
  stopB();
  bridge._receive(event('e', 2));
  assert.deepEqual(seen, [['b', 1]]);
  assert.equal(bridge._sizes().listeners, 0);
  bridge.off('never-registered', a);
  bridge.on('x', a);
  bridge.on('x', b);
  bridge.off('x');
  assert.equal(bridge._sizes().listeners, 0, 'off(name) without a function removes all listeners of name');
});

test('the same listener registered twice runs once per event', () => {
  const { bridge } = setup();
  let n = 0;
  const fn = () => { n++; };
  bridge.on('e', fn);
  bridge.on('e', fn);
  bridge._receive(event('e'));
  assert.equal(n, 1);
});

test('a listener that throws does not stop the other listeners and is reported, not thrown', () => {
  const { bridge, win } = setup();
  const seen = [];
  bridge.on('e', () => { throw new Error('first fails'); });
  bridge.on('e', (d) => seen.push(d));
  bridge.on('e', () => { throw 'string thrown'; });
  bridge.on('e', (d) => seen.push(d * 10));
  assert.doesNotThrow(() => bridge._receive(event('e', 4)));
  assert.deepEqual(seen, [4, 40]);
  assert.equal(win.console.errors.length, 2);
  assert.equal(win.console.errors[0][1].message, 'first fails');
});

test('a listener removing another during dispatch does not skip or break the current dispatch', () => {
  const { bridge } = setup();
  const seen = [];
  const second = () => seen.push('second');
  bridge.on('e', () => { seen.push('first'); bridge.off('e', second); });
  bridge.on('e', second);
  bridge._receive(event('e'));
  bridge._receive(event('e'));
  assert.deepEqual(seen, ['first', 'second', 'first']);
});

test('on/handle reject bad arguments with TypeError (programming errors)', () => {
  const { bridge } = setup();
  assert.throws(() => bridge.on('', () => {}), TypeError);
  assert.throws(() => bridge.on('e', 'not a function'), TypeError);
  assert.throws(() => bridge.handle(5, () => {}), TypeError);
  assert.throws(() => bridge.handle('x', 'nope'), TypeError);
});

test('handle: a handler returning a value answers with an ok reply carrying the same id', async () => {
  const { bridge, transport } = setup();
  const calls = [];
  bridge.handle('page.title', (options, context) => {
    calls.push([options, typeof context.signal.aborted]);
    return { title: 'Checkout' };
  });
  bridge._receive(nativeCall('n-1', 'page.title', { format: 'plain' }));
  await settleMicrotasks();
  assert.deepEqual(calls, [[{ format: 'plain' }, 'boolean']]);
  assert.deepEqual(transport.messages, [{ v: 1, kind: 'reply', id: 'n-1', ok: true, data: { title: 'Checkout' } }]);
  assert.equal(bridge._sizes().nativeCalls, 0);
});

test('handle: a Promise result is awaited; undefined becomes null; absent options become null', async () => {
  const { bridge, transport } = setup();
  bridge.handle('later', (options) => Promise.resolve(options === null ? 'no options' : options));
  bridge.handle('nothing', () => undefined);
  bridge._receive({ v: 1, kind: 'call', id: 'n-1', task: 'later' });
  bridge._receive(nativeCall('n-2', 'nothing', 1));
  await settleMicrotasks();
  assert.deepEqual(transport.messages, [
    { v: 1, kind: 'reply', id: 'n-2', ok: true, data: null },
    { v: 1, kind: 'reply', id: 'n-1', ok: true, data: 'no options' },
  ]);
});

test('handle: a throw or rejection gives ok:false task_failed, or the thrown string code', async () => {
  const { bridge, transport } = setup();
  bridge.handle('throws', () => { throw new Error('bad input'); });
  bridge.handle('rejects', () => Promise.reject(Object.assign(new Error('nope'), { code: 'forbidden', details: { why: 'x' } })));
  bridge.handle('numeric-code', () => { throw Object.assign(new Error('n'), { code: 42 }); });
  bridge.handle('throws-string', () => { throw 'plain string'; });
  bridge.handle('throws-null', () => { throw null; });
  ['throws', 'rejects', 'numeric-code', 'throws-string', 'throws-null'].forEach((task, i) => {
    bridge._receive(nativeCall('n-' + (i + 1), task, null));
  });
  await settleMicrotasks();
  const byId = new Map(transport.messages.map((m) => [m.id, m]));
  assert.deepEqual(byId.get('n-1'), { v: 1, kind: 'reply', id: 'n-1', ok: false, error: { code: 'task_failed', message: 'bad input' } });
  assert.deepEqual(byId.get('n-2').error, { code: 'forbidden', message: 'nope', details: { why: 'x' } });
  assert.equal(byId.get('n-3').error.code, 'task_failed');
  assert.deepEqual(byId.get('n-4').error, { code: 'task_failed', message: 'plain string' });
  assert.equal(byId.get('n-5').error.code, 'task_failed');
  assert.equal(transport.messages.length, 5);
});

test('handle: no handler gives unknown_task with the task in details; handle(name, null) removes it', async () => {
  const { bridge, transport } = setup();
  bridge.handle('share', () => 'A');
  bridge.handle('share', () => 'B');
  bridge._receive(nativeCall('n-1', 'share', null));
  await settleMicrotasks();
  bridge.handle('share', null);
  bridge._receive(nativeCall('n-2', 'share', null));
  await settleMicrotasks();
  assert.deepEqual(transport.messages, [
    { v: 1, kind: 'reply', id: 'n-1', ok: true, data: 'B' },
    { v: 1, kind: 'reply', id: 'n-2', ok: false,
      error: { code: 'unknown_task', message: 'No page handler for "share"', details: { task: 'share' } } },
  ]);
  assert.equal(bridge._sizes().handlers, 0);
});

test('handle: a result that is not JSON answers invalid_result instead of hanging native', async () => {
  const { bridge, transport } = setup();
  const cyclic = {};
  cyclic.me = cyclic;
  bridge.handle('cyclic', () => cyclic);
  bridge.handle('bigint', () => 1n);
  bridge.handle('fn', () => () => 1);
  bridge._receive(nativeCall('n-1', 'cyclic'));
  bridge._receive(nativeCall('n-2', 'bigint'));
  bridge._receive(nativeCall('n-3', 'fn'));
  await settleMicrotasks();
  assert.deepEqual(transport.messages.map((m) => [m.id, m.ok, m.error.code]), [
    ['n-1', false, 'invalid_result'], ['n-2', false, 'invalid_result'], ['n-3', false, 'invalid_result'],
  ]);
});

test('handle: error details that are not JSON are dropped, the error reply still goes out', async () => {
  const { bridge, transport } = setup();
  bridge.handle('t', () => { throw Object.assign(new Error('m'), { code: 'x_failed', details: { n: 1n } }); });
  bridge._receive(nativeCall('n-1', 't'));
  await settleMicrotasks();
  assert.deepEqual(transport.messages, [{ v: 1, kind: 'reply', id: 'n-1', ok: false, error: { code: 'x_failed', message: 'm' } }]);
});

test('native cancel aborts the handler signal and no reply is sent afterwards', async () => {
  const { bridge, transport } = setup();
  let signal = null;
  let finish = null;
  const aborted = [];
  bridge.handle('scan', (options, context) => {
    signal = context.signal;
    signal.addEventListener('abort', () => aborted.push('abort event'));
    return new Promise((resolve) => { finish = resolve; });
  });
  bridge._receive(nativeCall('n-7', 'scan', {}));
  assert.equal(signal.aborted, false);
  bridge._receive({ v: 1, kind: 'cancel', id: 'n-7' });
  assert.equal(signal.aborted, true);
  assert.deepEqual(aborted, ['abort event']);
  finish('too late');
  await settleMicrotasks();
  assert.deepEqual(transport.messages, []);
  assert.equal(bridge._sizes().nativeCalls, 0);
});

test('a cancel that arrives before its call: the call never runs its handler and gets no reply', async () => {
  // Native sends a call's cancel as soon as the call was handed to the engine, not after its
  // evaluation ended, so the two may reach the page in either order (docs/protocol.md, "cancel").
  const { bridge, transport } = setup();
  let runs = 0;
  bridge.handle('save', () => { runs++; return 'saved'; });
  bridge._receive({ v: 1, kind: 'cancel', id: 'n-3' });
  bridge._receive(nativeCall('n-3', 'save', {}));
  bridge._receive(nativeCall('n-4', 'save', {}));
  await settleMicrotasks();
  assert.equal(runs, 1, 'only the call that was not cancelled ran');
  assert.deepEqual(transport.messages, [{ v: 1, kind: 'reply', id: 'n-4', ok: true, data: 'saved' }]);
  // The early cancel is used once: a later call that reuses the id runs.
  bridge._receive(nativeCall('n-3', 'save', {}));
  await settleMicrotasks();
  assert.equal(runs, 2);
  assert.equal(bridge._sizes().earlyCancels, 0);
});

test('early cancels are bounded: the oldest are forgotten first', async () => {
  const { bridge } = setup();
  let runs = 0;
  bridge.handle('t', () => { runs++; return null; });
  for (let i = 0; i < 300; i++) { bridge._receive({ v: 1, kind: 'cancel', id: 'n-' + i }); }
  assert.equal(bridge._sizes().earlyCancels, 256);
  bridge._receive(nativeCall('n-0', 't'));     // forgotten: runs
  bridge._receive(nativeCall('n-299', 't'));   // remembered: does not run
  await settleMicrotasks();
  assert.equal(runs, 1);
  // Ids that are not strings are not remembered.
  bridge._receive({ v: 1, kind: 'cancel', id: 7 });
  bridge._receive({ v: 1, kind: 'cancel' });
  assert.equal(bridge._sizes().earlyCancels, 255);
});

test('a native call without id runs the handler and sends no reply; a duplicate pending id is ignored', async () => {
  const { bridge, transport } = setup();
  let runs = 0;
  let finish = null;
  bridge.handle('t', () => { runs++; return new Promise((r) => { finish = r; }); });
  bridge._receive({ v: 1, kind: 'call', task: 't' });
  finish(1);
  bridge._receive(nativeCall('n-1', 't'));
  bridge._receive(nativeCall('n-1', 't'));
  assert.equal(runs, 2);
  finish(2);
  await settleMicrotasks();
  assert.deepEqual(transport.messages, [{ v: 1, kind: 'reply', id: 'n-1', ok: true, data: 2 }]);
});

test('an unsubscribe function removes only its own registration, once', () => {
  const { bridge } = setup();
  let n = 0;
  const fn = () => { n++; };
  // A stale unsubscribe (called again after the listener was registered anew) changes nothing.
  const first = bridge.on('e', fn);
  first();
  bridge.on('e', fn);
  first();
  bridge._receive(event('e'));
  assert.equal(n, 1, 'a second call of an old unsubscribe removed a newer registration');
  // Two subscribers sharing one function (a module-level handler used by two components): the
  // listener runs once per event and stays until both unsubscribed.
  bridge.off('e');
  n = 0;
  const stopA = bridge.on('e', fn);
  const stopB = bridge.on('e', fn);
  bridge._receive(event('e'));
  stopA();
  bridge._receive(event('e'));
  assert.equal(n, 2, 'one subscriber unsubscribing removed the other subscriber too');
  stopB();
  bridge._receive(event('e'));
  assert.equal(n, 2);
  assert.equal(bridge._sizes().listeners, 0);
  // off(name, fn) still removes the listener whatever the subscriptions.
  bridge.on('e', fn);
  bridge.on('e', fn);
  bridge.off('e', fn);
  bridge._receive(event('e'));
  assert.equal(n, 2);
});

// Kind of fault: binary values turned into JSON without a word (a Uint8Array as {"0":…}, a Blob
// as {}): found for `notify`, and by the same trial for a page handler's answer. Binary values
// travel only in a page's calls; an answer with one fails invalid_result, saying why.
test('a handler answer holding binary values fails invalid_result instead of reaching native as {"0":…} or {}', async () => {
  const { bridge, transport } = setup();
  bridge.handle('bytes', () => new Uint8Array([1, 2, 3]));
  bridge.handle('nested', async () => ({ file: new Blob(['x']), name: 'a.txt' }));
  bridge.handle('plain', () => ({ n: 1 }));
  bridge._receive(nativeCall('n-1', 'bytes'));
  bridge._receive(nativeCall('n-2', 'nested'));
  bridge._receive(nativeCall('n-3', 'plain'));
  await settleMicrotasks();
  const replies = new Map(transport.messages.filter((m) => m.kind === 'reply').map((m) => [m.id, m]));
  for (const id of ['n-1', 'n-2']) {
    assert.equal(replies.get(id).ok, false, id);
    assert.equal(replies.get(id).error.code, 'invalid_result', id);
    assert.deepEqual(replies.get(id).error.details, { reason: 'binary_value' }, id);
  }
  assert.deepEqual(replies.get('n-3'), { v: 1, kind: 'reply', id: 'n-3', ok: true, data: { n: 1 } });
});
