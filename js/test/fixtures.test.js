'use strict';
// The protocol fixtures (Tests/Fixtures/protocol/*.json) are the normative copy of every message.
// Page-to-native fixtures: the shim produces exactly that message (apart from the random call id).
// Native-to-page fixtures: the shim accepts them, as an object and as JSON text, with the right effect.
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  loadShim, makeWindow, recordingHandler, recordingTransport, readFixtures, settleMicrotasks,
} = require('../testing/fakes.js');

const { createWebBridge, install } = loadShim();
const fixtures = readFixtures();
const byFile = new Map(fixtures.map((f) => [f.file, f]));
const ID = /^[0-9a-z]+-[1-9][0-9]*$/;

const REQUIRED = ['call.json', 'call-fire-and-forget.json', 'call-legacy-callbackId.json', 'cancel.json', 'cancel-timeout.json',
  'page-reply-ok.json', 'page-reply-error.json', 'reply-ok.json', 'reply-ok-null.json', 'reply-error.json',
  'progress.json', 'event.json', 'native-call.json', 'native-cancel.json', 'history-notice.json', 'tasks.json'];

function setup() {
  const transport = recordingTransport();
  return { transport, bridge: createWebBridge({ transport }) };
}
/** The shim's message with its random page call id replaced by the fixture's id. */
function withFixtureId(produced, fixture) {
  assert.match(produced.id, ID);
  return { ...produced, id: fixture.id };
}

const pageToNative = {
  'call.json': async (m) => {
    const { bridge, transport } = setup();
    bridge.call(m.task, m.options);
    assert.deepEqual(withFixtureId(transport.messages[0], m), m);
  },
  'call-fire-and-forget.json': async (m) => {
    const { bridge, transport } = setup();
    bridge.notify(m.task, m.options);
    assert.deepEqual(transport.messages, [m]);
  },
  'call-legacy-callbackId.json': async (m) => {
    // Native must accept this shape; the shim itself never produces it.
    assert.equal(typeof m.callbackId, 'string');
    assert.ok(!('v' in m) && !('kind' in m) && !('id' in m));
    const { bridge, transport } = setup();
    bridge.call(m.task, m.options, () => {});
    const produced = transport.messages[0];
    assert.ok(!('callbackId' in produced));
    assert.deepEqual(produced, { v: 1, kind: 'call', id: produced.id, task: m.task, options: m.options });
  },
  'cancel.json': async (m) => {
    const { bridge, transport } = setup();
    const controller = new AbortController();
    bridge.call('cart.add', {}, { signal: controller.signal, callback: () => {} });
    controller.abort();
    assert.deepEqual(withFixtureId(transport.messages[1], m), m);
    assert.equal(transport.messages[1].id, transport.messages[0].id);
  },
  'cancel-timeout.json': async (m) => {
    // The call's own time limit, and a signal that timed out (AbortSignal.timeout's reason).
    const { bridge, transport } = setup();
    bridge.call('cart.add', {}, { timeout: 5, callback: () => {} });
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.deepEqual(withFixtureId(transport.messages[1], m), m);
    const controller = new AbortController();
    bridge.call('cart.add', {}, { signal: controller.signal, callback: () => {} });
    controller.abort(new DOMException('timed out', 'TimeoutError'));
    assert.deepEqual(withFixtureId(transport.messages[3], m), m);
    assert.equal(transport.messages[3].id, transport.messages[2].id);
  },
  'page-reply-ok.json': async (m) => {
    const { bridge, transport } = setup();
    const call = byFile.get('native-call.json').message;
    assert.equal(call.id, m.id);
    bridge.handle(call.task, () => m.data);
    bridge._receive(call);
    await settleMicrotasks();
    assert.deepEqual(transport.messages, [m]);
  },
  'page-reply-error.json': async (m) => {
    const { bridge, transport } = setup();
    bridge._receive({ v: 1, kind: 'call', id: m.id, task: m.error.details.task, options: null });
    await settleMicrotasks();
    assert.deepEqual(transport.messages, [m]);
  },
  'history-notice.json': async (m) => {
    const handler = recordingHandler();
    const url = new URL(m.options.url);
    const win = makeWindow({ handler, href: url.origin + '/' });
    install(win);
    win.history.pushState(null, '', url.pathname + url.search + url.hash);
    win.clock.tick(0);
    assert.deepEqual(handler.messages, [m]);
  },
};

/** Each runner gets the message as delivered (object or text) and a fresh bridge with a pending call. */
const nativeToPage = {
  'reply-ok.json': async (m, deliver) => {
    const { bridge, transport } = setup();
    const p = bridge.call('cart.add', {});
    deliver(bridge, { ...m, id: transport.messages[0].id });
    assert.deepEqual(await p, m.data);
    assert.equal(bridge.pendingCount(), 0);
  },
  'reply-ok-null.json': async (m, deliver) => {
    const { bridge, transport } = setup();
    const seen = [];
    bridge.call('ping', null, (r) => seen.push(r));
    deliver(bridge, { ...m, id: transport.messages[0].id });
    assert.deepEqual(seen, [{ ok: true, data: null }]);
  },
  'reply-error.json': async (m, deliver) => {
    const { bridge, transport } = setup();
    const p = bridge.call('geo.lookup', {});
    deliver(bridge, { ...m, id: transport.messages[0].id });
    await assert.rejects(p, (err) => {
      assert.equal(err.code, m.error.code);
      assert.equal(err.message, m.error.message);
      assert.deepEqual(err.details, m.error.details);
      return true;
    });
  },
  'progress.json': async (m, deliver) => {
    const { bridge, transport } = setup();
    const seen = [];
    bridge.call('download', {}, { onProgress: (d) => seen.push(d), callback: () => {} });
    deliver(bridge, { ...m, id: transport.messages[0].id });
    assert.deepEqual(seen, [m.data]);
    assert.equal(bridge.pendingCount(), 1, 'progress is not final');
  },
  'event.json': async (m, deliver) => {
    const { bridge } = setup();
    const seen = [];
    bridge.on(m.name, (d) => seen.push(d));
    deliver(bridge, m);
    assert.deepEqual(seen, [m.data]);
  },
  'tasks.json': async (m, deliver) => {
    const { bridge } = setup();
    assert.equal(bridge.tasks(), null);
    deliver(bridge, m);
    assert.deepEqual(bridge.tasks(), m.tasks);
    assert.equal(bridge.supports('Cart.add', '2'), true);
    assert.equal(bridge.supports('Echo'), true);
    assert.equal(bridge.supports('Missing'), false);
  },
  'native-call.json': async (m, deliver) => {
    const { bridge, transport } = setup();
    const seen = [];
    bridge.handle(m.task, (options) => { seen.push(options); return 'ok'; });
    deliver(bridge, m);
    await settleMicrotasks();
    assert.deepEqual(seen, [m.options]);
    assert.deepEqual(transport.messages, [{ v: 1, kind: 'reply', id: m.id, ok: true, data: 'ok' }]);
  },
  'native-cancel.json': async (m, deliver) => {
    const { bridge, transport } = setup();
    let signal = null;
    bridge.handle('page.title', (options, context) => { signal = context.signal; return new Promise(() => {}); });
    bridge._receive({ v: 1, kind: 'call', id: m.id, task: 'page.title', options: null });
    deliver(bridge, m);
    assert.equal(signal.aborted, true);
    await settleMicrotasks();
    assert.deepEqual(transport.messages, []);
  },
};

test('every required fixture exists and every fixture has exactly the agreed shape', () => {
  for (const file of REQUIRED) { assert.ok(byFile.has(file), file + ' is missing'); }
  for (const f of fixtures) {
    const { file, ...content } = f;
    assert.deepEqual(Object.keys(content), ['direction', 'kind', 'description', 'message'], file);
    assert.ok(f.direction === 'page-to-native' || f.direction === 'native-to-page', file);
    assert.equal(typeof f.description, 'string', file);
    assert.ok(f.description.length > 10, file);
    assert.equal(typeof f.message, 'object', file);
    if (f.file !== 'call-legacy-callbackId.json') {
      assert.equal(f.message.v, 1, file);
      assert.equal(f.message.kind, f.kind, file);
    }
  }
});

test('every fixture is covered by a round-trip check below', () => {
  for (const f of fixtures) {
    const table = f.direction === 'page-to-native' ? pageToNative : nativeToPage;
    assert.equal(typeof table[f.file], 'function', f.file + ' has no round-trip check');
  }
});

for (const f of fixtures.filter((x) => x.direction === 'page-to-native')) {
  test('fixture ' + f.file + ': the shim produces this message', async () => {
    await pageToNative[f.file](f.message);
  });
}

for (const f of fixtures.filter((x) => x.direction === 'native-to-page')) {
  test('fixture ' + f.file + ': the shim accepts it as an object', async () => {
    await nativeToPage[f.file](f.message, (bridge, m) => bridge._receive(m));
  });
  test('fixture ' + f.file + ': the shim accepts it as JSON text (relay delivery)', async () => {
    await nativeToPage[f.file](f.message, (bridge, m) => bridge._receive(JSON.stringify(m)));
  });
}

test('docs/protocol.md shows every fixture message exactly (the fixtures are the normative copy)', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { FIXTURE_DIR } = require('../testing/fakes.js');
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'protocol.md'), 'utf8');
  const shown = new Map();
  const block = /Fixture `([^`]+)`:\n\n```json\n([^\n]+)\n```/g;
  for (let m = block.exec(doc); m; m = block.exec(doc)) { shown.set(m[1], JSON.parse(m[2])); }
  const files = fixtures.map((f) => f.file).concat(['relay/relay-envelope.json', 'relay/relay-envelope-array.json']);
  for (const file of files) {
    assert.ok(shown.has(file), 'docs/protocol.md does not show ' + file);
    const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, file), 'utf8'));
    assert.deepEqual(shown.get(file), fixture.message, file);
  }
  assert.equal(shown.size, files.length, 'docs show a fixture that does not exist');
});
