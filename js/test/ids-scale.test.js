'use strict';
// Call ids (R18) and bounded internal state under load.
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  loadShim, makeWindow, recordingTransport, recordingHandler, shimSource, evaluateIn,
} = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const ID = /^[0-9a-z]+-[1-9][0-9]*$/;

test('R18 10,000 synchronous calls get 10,000 distinct ids of the form <prefix>-<counter>', () => {
  const transport = recordingTransport();
  const bridge = createWebBridge({ transport });
  for (let i = 0; i < 10000; i++) { bridge.call('geo.lookup', { q: i }, () => {}); }
  const ids = transport.messages.map((m) => m.id);
  assert.equal(new Set(ids).size, 10000);
  assert.ok(ids.every((id) => ID.test(id)));
  assert.equal(new Set(ids.map((id) => id.split('-')[0])).size, 1, 'one prefix per document');
  assert.equal(bridge.pendingCount(), 10000);
});

test('R18 parallel calls to the same task: out-of-order replies reach the right callbacks exactly once', async () => {
  const transport = recordingTransport();
  const bridge = createWebBridge({ transport });
  const got = { a: [], b: [] };
  bridge.call('geo.lookup', { q: 'a' }, (r) => got.a.push(r.data));
  const pb = bridge.call('geo.lookup', { q: 'b' });
  const [ma, mb] = transport.messages;
  assert.notEqual(ma.id, mb.id);
  bridge._receive({ v: 1, kind: 'reply', id: mb.id, ok: true, data: 'result of b' });
  bridge._receive({ v: 1, kind: 'reply', id: ma.id, ok: true, data: 'result of a' });
  bridge._receive({ v: 1, kind: 'reply', id: mb.id, ok: true, data: 'b again' });
  assert.equal(await pb, 'result of b');
  assert.deepEqual(got.a, ['result of a']);
});

test('R18 1,000 calls answered in reverse and shuffled order each get their own result', () => {
  const transport = recordingTransport();
  const bridge = createWebBridge({ transport });
  const results = new Map();
  for (let i = 0; i < 1000; i++) { bridge.call('geo.lookup', { q: i }, (r) => results.set(i, (results.get(i) || []).concat([r.data]))); }
  const messages = transport.messages.slice().reverse();
  for (let i = 0; i < messages.length; i += 2) { messages.push(messages.splice(i, 1)[0]); }
  messages.forEach((m) => bridge._receive({ v: 1, kind: 'reply', id: m.id, ok: true, data: m.options.q }));
  assert.equal(results.size, 1000);
  for (const [i, list] of results) { assert.deepEqual(list, [i]); }
});

test('R18 ids stay distinct across documents, also without crypto (Math.random + Date.now fallback)', () => {
  const prefixes = [];
  for (let i = 0; i < 20; i++) {
    const handler = recordingHandler();
    const win = makeWindow({ handler });
    delete win.crypto;
    evaluateIn(win, shimSource());
    win.WebBridge.call('t', 1, () => {});
    win.WebBridge.call('t', 2, () => {});
    const [a, b] = handler.messages.map((m) => m.id);
    assert.ok(ID.test(a) && ID.test(b), a);
    assert.notEqual(a, b);
    prefixes.push(a.split('-')[0]);
  }
  assert.equal(new Set(prefixes).size, 20);
});

test('100,000 calls settled by replies, timeouts and aborts leave pendingCount() at 0 and no internal growth', () => {
  const win = makeWindow();
  const transport = recordingTransport();
  const bridge = createWebBridge({ window: win, transport });
  let settled = 0;
  const onReply = () => { settled++; };
  const controllers = [];
  for (let round = 0; round < 10; round++) {
    transport.texts.length = 0;
    for (let i = 0; i < 10000; i++) {
      const kind = i % 10;
      if (kind < 7) {
        bridge.call('t', i, onReply);
      } else if (kind < 9) {
        bridge.call('t', i, { timeout: 1000, callback: onReply });
      } else {
        const c = new AbortController();
        controllers.push(c);
        bridge.call('t', i, { signal: c.signal, callback: onReply, onProgress: () => {} });
      }
    }
    transport.messages.forEach((m, i) => {
      if (i % 10 < 7) { bridge._receive({ v: 1, kind: 'reply', id: m.id, ok: true, data: null }); }
    });
    controllers.splice(0).forEach((c) => c.abort());
    win.clock.tick(1000);
  }
  assert.equal(settled, 100000);
  assert.equal(bridge.pendingCount(), 0);
  assert.deepEqual(bridge._sizes(), { pending: 0, queued: 0, listeners: 0, handlers: 0, nativeCalls: 0, earlyCancels: 0, mockCalls: 0 });
  assert.equal(win.clock.size, 0, 'no timer left behind');
});

test('100,000 promise calls resolved out of order leave no pending entries', async () => {
  const transport = recordingTransport();
  const bridge = createWebBridge({ transport });
  const promises = [];
  for (let i = 0; i < 100000; i++) { promises.push(bridge.call('t', i)); }
  const messages = transport.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    bridge._receive({ v: 1, kind: 'reply', id: messages[i].id, ok: true, data: messages[i].options });
  }
  const values = await Promise.all(promises);
  assert.equal(values[99999], 99999);
  assert.equal(bridge.pendingCount(), 0);
});

test('native->page calls do not accumulate state after their replies', async () => {
  const transport = recordingTransport();
  const bridge = createWebBridge({ transport });
  bridge.handle('t', (n) => (n % 2 ? Promise.resolve(n) : n));
  for (let i = 1; i <= 10000; i++) { bridge._receive({ v: 1, kind: 'call', id: 'n-' + i, task: 't', options: i }); }
  for (let i = 0; i < 5; i++) { await Promise.resolve(); }
  assert.equal(transport.texts.length, 10000);
  assert.equal(bridge._sizes().nativeCalls, 0);
});
