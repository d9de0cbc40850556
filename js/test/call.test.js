'use strict';
// WebBridge.call: promise and callback forms, options typing (R15), local validation errors.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, recordingTransport, settleMicrotasks } = require('../testing/fakes.js');

const { createWebBridge, WebBridgeError } = loadShim();

function setup() {
  const transport = recordingTransport();
  const bridge = createWebBridge({ transport });
  const last = () => transport.messages[transport.messages.length - 1];
  const reply = (id, body) => bridge._receive({ v: 1, kind: 'reply', id, ...body });
  return { transport, bridge, last, reply };
}

test('promise form resolves with data of an ok reply', async () => {
  const { bridge, last, reply } = setup();
  const p = bridge.call('cart.add', { sku: 'A-1' });
  assert.ok(p instanceof Promise);
  reply(last().id, { ok: true, data: { count: 3 } });
  assert.deepEqual(await p, { count: 3 });
  assert.equal(bridge.pendingCount(), 0);
});

test('promise form rejects with WebBridgeError carrying code, message and details', async () => {
  const { bridge, last, reply } = setup();
  const p = bridge.call('geo.lookup', {});
  reply(last().id, { ok: false, error: { code: 'unknown_task', message: 'No task', details: { task: 'geo.lookup' } } });
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof WebBridgeError);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'WebBridgeError');
    assert.equal(err.code, 'unknown_task');
    assert.equal(err.message, 'No task');
    assert.deepEqual(err.details, { task: 'geo.lookup' });
    return true;
  });
  assert.equal(bridge.WebBridgeError, WebBridgeError);
});

test('error reply without details gives details null; without code gives task_failed', async () => {
  const { bridge, last, reply } = setup();
  const a = bridge.call('t');
  reply(last().id, { ok: false, error: { code: 'forbidden', message: 'no' } });
  await assert.rejects(a, (err) => err.code === 'forbidden' && err.details === null);
  const b = bridge.call('t');
  reply(last().id, { ok: false });
  await assert.rejects(b, (err) => err.code === 'task_failed' && typeof err.message === 'string');
});

test('a reply whose ok is not boolean settles invalid_message instead of hanging', async () => {
  const { bridge, last, reply } = setup();
  const p = bridge.call('t');
  reply(last().id, { ok: 'yes', data: 1 });
  await assert.rejects(p, (err) => err.code === 'invalid_message');
  assert.equal(bridge.pendingCount(), 0);
});

test('callback form: function as 3rd argument runs exactly once with the reply object', async () => {
  const { bridge, last, reply } = setup();
  const seen = [];
  const result = bridge.call('ping', null, (r) => seen.push(r));
  assert.equal(result, undefined);
  const id = last().id;
  reply(id, { ok: true, data: null });
  reply(id, { ok: true, data: 'again' });
  assert.deepEqual(seen, [{ ok: true, data: null }]);
});

test('callback form: settings.callback and a function as 2nd argument both work', async () => {
  const { bridge, last, reply } = setup();
  const seen = [];
  assert.equal(bridge.call('a', { x: 1 }, { callback: (r) => seen.push(['s', r]) }), undefined);
  reply(last().id, { ok: false, error: { code: 'timeout', message: 'late' } });
  assert.equal(bridge.call('b', (r) => seen.push(['f', r])), undefined);
  assert.equal(last().options, null);
  reply(last().id, { ok: true, data: 2 });
  assert.deepEqual(seen, [
    ['s', { ok: false, error: { code: 'timeout', message: 'late', details: null } }],
    ['f', { ok: true, data: 2 }],
  ]);
});

test('a callback that throws is reported and does not escape _receive', () => {
  const transport = recordingTransport();
  const errors = [];
  const fakeWindow = null;
  const bridge = createWebBridge({ transport, window: fakeWindow });
  const original = console.error;
  console.error = (...args) => errors.push(args);
  try {
    bridge.call('t', 1, () => { throw new Error('boom'); });
    assert.doesNotThrow(() => bridge._receive({ v: 1, kind: 'reply', id: transport.messages[0].id, ok: true, data: 1 }));
  } finally {
    console.error = original;
  }
  assert.equal(errors.length, 1);
  assert.equal(bridge.pendingCount(), 0);
});

test('R15 options keep their JSON type: objects, strings, 0, false, arrays, null, nested', async () => {
  const { bridge, transport } = setup();
  const inputs = [{ sku: 'A-1', qty: 2 }, 'plain', 0, false, true, -1.5, '', [], [0, false, 'x', null],
    null, { nested: { deep: [{ a: false }] } }, { toString: 1, valueOf: 'v' }];
  inputs.forEach((options) => bridge.call('echo', options, () => {}));
  const posted = transport.messages;
  assert.equal(posted.length, inputs.length);
  posted.forEach((m, i) => {
    assert.deepEqual(m.options, inputs[i]);
    assert.equal(typeof m.options, typeof inputs[i]);
  });
  assert.ok(transport.texts.every((t) => !t.includes('[object Object]')));
  // undefined options are sent as null (absent = null in the spec), never as the string "undefined".
  bridge.call('echo', undefined, () => {});
  assert.equal(transport.messages.at(-1).options, null);
  assert.ok(!transport.texts.at(-1).includes('undefined'));
});

test('R15 every posted message is JSON text of a v1 call with the exact options', () => {
  const { bridge, transport } = setup();
  bridge.call('cart.add', { sku: 'A-1', qty: 2 }, () => {});
  bridge.call('echo', 'plain', () => {});
  bridge.call('echo', 0, () => {});
  bridge.call('echo', false, () => {});
  assert.ok(transport.texts.every((t) => typeof t === 'string'));
  assert.deepEqual(transport.messages.map(({ id, ...rest }) => rest), [
    { v: 1, kind: 'call', task: 'cart.add', options: { sku: 'A-1', qty: 2 } },
    { v: 1, kind: 'call', task: 'echo', options: 'plain' },
    { v: 1, kind: 'call', task: 'echo', options: 0 },
    { v: 1, kind: 'call', task: 'echo', options: false },
  ]);
});

test('options that are not JSON settle invalid_options without posting (promise and callback)', async () => {
  const { bridge, transport } = setup();
  const cyclic = {};
  cyclic.self = cyclic;
  for (const bad of [cyclic, 10n, Symbol('s'), { big: 1n }]) {
    await assert.rejects(bridge.call('t', bad), (err) => err.code === 'invalid_options');
  }
  const seen = [];
  assert.doesNotThrow(() => bridge.call('t', cyclic, (r) => seen.push(r.error.code)));
  assert.deepEqual(seen, [], 'callback is never run synchronously inside call()');
  await settleMicrotasks();
  assert.deepEqual(seen, ['invalid_options']);
  assert.equal(transport.texts.length, 0);
  assert.equal(bridge.pendingCount(), 0);
});

test('an invalid task name settles invalid_message and never throws', async () => {
  const { bridge, transport } = setup();
  for (const task of ['', null, undefined, 42, {}, ['a']]) {
    await assert.rejects(bridge.call(task, {}), (err) => err.code === 'invalid_message');
    const seen = [];
    assert.equal(bridge.call(task, {}, (r) => seen.push(r)), undefined);
    await settleMicrotasks();
    assert.equal(seen.length, 1);
    assert.equal(seen[0].ok, false);
  }
  assert.equal(transport.texts.length, 0);
});

test('options are snapshotted at call time: later mutation does not change the message', () => {
  const { bridge, transport } = setup();
  const options = { n: 1 };
  bridge.call('t', options, () => {});
  options.n = 2;
  assert.equal(transport.messages[0].options.n, 1);
});

test('notify posts a fire-and-forget call without id and never registers a pending entry', () => {
  const { bridge, transport } = setup();
  assert.equal(bridge.notify('analytics.track', { event: 'open' }), true);
  assert.deepEqual(transport.messages, [{ v: 1, kind: 'call', task: 'analytics.track', options: { event: 'open' } }]);
  assert.equal(bridge.pendingCount(), 0);
  assert.equal(bridge.notify('', 1), false);
  assert.equal(bridge.notify('x', 5n), false);
  assert.equal(transport.texts.length, 1);
});

test('pendingCount counts calls awaiting a reply', () => {
  const { bridge, transport, reply } = setup();
  bridge.call('a', 1, () => {});
  bridge.call('b', 2, () => {});
  assert.equal(bridge.pendingCount(), 2);
  reply(transport.messages[1].id, { ok: true, data: null });
  assert.equal(bridge.pendingCount(), 1);
  assert.equal(bridge.version, '1');
});

test('the bridge object is frozen so page code cannot swap _receive', () => {
  const { bridge } = setup();
  assert.ok(Object.isFrozen(bridge));
});

test('call never throws even when reading the settings object throws', async () => {
  const { bridge } = setup();
  const hostile = {};
  Object.defineProperty(hostile, 'callback', { get() { throw new Error('getter'); } });
  let result;
  assert.doesNotThrow(() => { result = bridge.call('t', 1, hostile); });
  assert.ok(result instanceof Promise);
  const signalHostile = {};
  Object.defineProperty(signalHostile, 'signal', { get() { throw new Error('signal getter'); } });
  await assert.rejects(bridge.call('t', 1, signalHostile), (err) => err.code === 'invalid_message');
});

test('encodeCall key order: v, kind, id, task, options, starting with the prefix native reads in one comparison', () => {
  // Native's fast envelope scan (CallEnvelopeScan.shimPrefix) expects exactly this prefix; a shim
  // that reorders the keys still works, but every call takes the slower general path.
  const { bridge, transport } = setup();
  bridge.call('cart.add', { sku: 'A-1' });
  bridge.notify('notice', { page: 2 });
  const text = transport.texts[0];
  assert.ok(text.startsWith('{"v":1,"kind":"call","id":'), text);
  assert.deepEqual(Object.keys(JSON.parse(text)), ['v', 'kind', 'id', 'task', 'options']);
  assert.equal(transport.texts.length, 2);
  assert.deepEqual(Object.keys(JSON.parse(transport.texts[1])), ['v', 'kind', 'task', 'options']);
  for (const posted of transport.texts) {
    assert.ok(posted.startsWith('{"v":1,"kind":"call",'), posted);
  }
});

test('notify refuses binary values (no id, so no byte transport) instead of posting them as "{\\"0\\":1}"', async () => {
  const { bridge, transport } = setup();
  assert.equal(bridge.notify('log.upload', { file: new Uint8Array([1, 2]) }), false);
  assert.equal(bridge.notify('log.upload', [new ArrayBuffer(2)]), false);
  assert.equal(bridge.notify('log.upload', new DataView(new ArrayBuffer(1))), false);
  assert.equal(bridge.notify('log.upload', { deep: { list: [new Blob(['x'])] } }), false);
  assert.deepEqual(transport.texts, [], 'nothing is posted');
  // Page data with a toJSON or a "$bridgeBinary" key is data, as in call().
  assert.equal(bridge.notify('log', { $bridgeBinary: { token: 'x' } }), true);
  assert.equal(transport.texts.length, 1);
  // In mock mode too: the mock never sees the bytes turned into an object of indexes.
  const { makeWindow } = require('../testing/fakes.js');
  const mocked = createWebBridge({ window: makeWindow() });
  const seen = [];
  mocked.mock({ Track: (o) => { seen.push(o); } });
  assert.equal(mocked.notify('Track', { b: new Uint8Array([1]) }), false);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(seen, []);
});
