'use strict';
// The isolated-world relay and its handshake with the page shim, using two fake worlds that share
// one EventTarget (as the page world and a WebKit script world share one DOM window).
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  loadShim, loadRelay, makeWorlds, makeWindow, finishLoading, relayHandler, relaySource, evaluateIn,
  settleMicrotasks, readFixtures, relayEnvelope,
} = require('../testing/fakes.js');

const { createWebBridge, install } = loadShim();
const { createRelay } = loadRelay();

/** Records every CustomEvent on the shared target: [type, typeof detail]. */
function spyEvents(target) {
  const seen = [];
  const original = target.dispatchEvent.bind(target);
  target.dispatchEvent = (e) => { seen.push([e.type, typeof e.detail]); return original(e); };
  return seen;
}

test('relay handshake, shim first: calls queue until the relay says ready, then flush in order', () => {
  const { page, relay, handler } = makeWorlds();
  const bridge = install(page);
  bridge.call('a', 1, () => {});
  bridge.call('b', 2, () => {});
  assert.equal(handler.texts.length, 0);
  assert.equal(createRelay({ window: relay }), true);
  const bodies = handler.messages.map((envelope) => JSON.parse(envelope[2]));
  assert.deepEqual(bodies.map((m) => m.task), ['a', 'b']);
  bridge.call('c', 3, () => {});
  assert.equal(handler.texts.length, 3, 'after ready, calls go straight through');
});

test('relay handshake, relay first: the shim hello gets an immediate ready, nothing is queued', () => {
  const { page, relay, handler } = makeWorlds();
  createRelay({ window: relay });
  const bridge = install(page);
  bridge.call('a', 1, () => {});
  assert.equal(bridge._sizes().queued, 0);
  assert.equal(handler.texts.length, 1);
});

test('relay envelope of a short body: one string, "main <origin>" and a line feed before the page message text', () => {
  const { page, relay, handler } = makeWorlds({ href: 'https://app.example/cart?x=1' });
  createRelay({ window: relay });
  const bridge = install(page);
  bridge.call('cart.add', { sku: 'A-1', qty: 2 }, () => {});
  const posted = handler.texts[0];
  assert.equal(typeof posted, 'string', 'one string, not an array');
  const lineEnd = posted.indexOf('\n');
  assert.equal(posted.slice(0, lineEnd), 'main https://app.example');
  const body = JSON.parse(posted.slice(lineEnd + 1));
  const fixture = readFixtures().find((f) => f.file === 'call.json').message;
  assert.deepEqual({ ...body, id: fixture.id }, fixture);
});

test('relay envelope of a body of 65,536 UTF-16 units or more: the array [origin, "main", body]; one unit less: one string', () => {
  for (const [length, isArray] of [[65536, true], [65535, false], [200000, true]]) {
    const { page, relay, handler } = makeWorlds({ href: 'https://app.example/' });
    createRelay({ window: relay });
    const detail = '"' + 'x'.repeat(length - 2) + '"';
    page.dispatchEvent(new CustomEvent('webbridge:post', { detail }));
    assert.equal(Array.isArray(handler.texts[0]), isArray, 'length ' + length);
    assert.deepEqual(handler.messages[0], ['https://app.example', 'main', detail]);
  }
});

test('relay envelope: an origin that is not a one-line string goes in the array form, whatever the size', () => {
  for (const origin of [null, 'https://a.example\nmain https://b.example', 'x\ry']) {
    const { page, relay, handler } = makeWorlds();
    relay.location = { get origin() { if (origin === null) { throw new Error('no access'); } return origin; } };
    createRelay({ window: relay });
    page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{}' }));
    assert.deepEqual(handler.texts[0], [origin, 'main', '{}']);
  }
});

test('relay envelope fixtures (Tests/Fixtures/protocol/relay) match what the relay posts', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { FIXTURE_DIR } = require('../testing/fakes.js');
  const read = (name) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, 'relay', name), 'utf8'));
  const short = read('relay-envelope.json');
  const long = read('relay-envelope-array.json');
  for (const fixture of [short, long]) {
    assert.deepEqual(Object.keys(fixture), ['direction', 'kind', 'description', 'message']);
  }
  // The short fixture as posted; the array fixture's form, for a body long enough to take it.
  const { relay, handler, page } = makeWorlds();
  createRelay({ window: relay });
  const shortBody = short.message.slice(short.message.indexOf('\n') + 1);
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: shortBody }));
  assert.equal(handler.texts[0], short.message);
  assert.deepEqual(handler.messages[0], [long.message[0], long.message[1], long.message[2]], 'the same message in both forms');
  const longBody = long.message[2].replace('"qty":2}', '"qty":2,"note":"' + 'n'.repeat(70000) + '"}');
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: longBody }));
  assert.deepEqual(handler.texts[1], [long.message[0], long.message[1], longBody]);
});

test('relay in a subframe reports "sub"', () => {
  const { page, relay, handler } = makeWorlds({ subframe: true });
  createRelay({ window: relay });
  install(page).call('t', 1, () => {});
  assert.equal(handler.messages[0][1], 'sub');
});

test('relay posts the body string itself, never escaped into another JSON text', () => {
  const { page, relay, handler } = makeWorlds({ href: 'https://app.example/' });
  createRelay({ window: relay });
  const detail = '{"v":1,"kind":"call","id":"q","task":"t","options":"\\"quoted\\" \\\\ \u2028 \u00fc \ud83d\ude00 <\/x>"}';
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail }));
  assert.equal(handler.texts[0], 'main https://app.example\n' + detail, 'the same string, character for character, after the header line');
  const [origin, frame, body] = handler.messages[0];
  assert.deepEqual([origin, frame], ['https://app.example', 'main']);
  assert.equal(body, detail);
});

test('full round trip through the relay: a handler Promise reply string comes back as webbridge:message', async () => {
  const handler = relayHandler((envelope) => {
    const m = JSON.parse(envelope[2]);
    return Promise.resolve(JSON.stringify({ v: 1, kind: 'reply', id: m.id, ok: true, data: { echo: m.options } }));
  });
  const { page, relay, target } = makeWorlds({ handler });
  const events = spyEvents(target);
  createRelay({ window: relay });
  const bridge = install(page);
  const result = await bridge.call('echo', { text: "it's\n\u2028\"x\"" });
  assert.deepEqual(result, { echo: { text: "it's\n\u2028\"x\"" } });
  assert.ok(events.length >= 4);
  assert.ok(events.every(([, detailType]) => detailType === 'string'), 'every cross-world detail is a string');
  assert.deepEqual([...new Set(events.map(([type]) => type))].sort(),
    ['webbridge:hello', 'webbridge:message', 'webbridge:post', 'webbridge:ready']);
});

test('native -> page through the relay: a webbridge:message event reaches _receive', async () => {
  const { page, relay, handler } = makeWorlds();
  createRelay({ window: relay });
  const bridge = install(page);
  bridge.handle('page.title', () => 'Checkout');
  page.dispatchEvent(new CustomEvent('webbridge:message', { detail: '{"v":1,"kind":"call","id":"n-1","task":"page.title","options":null}' }));
  await settleMicrotasks();
  assert.deepEqual(JSON.parse(handler.messages[0][2]), { v: 1, kind: 'reply', id: 'n-1', ok: true, data: 'Checkout' });
});

test('relay ignores posts whose detail is not a string and handler replies that are not non-empty strings', async () => {
  const replies = [undefined, null, '', 42, { v: 1, kind: 'event', name: 'e' }];
  let i = 0;
  const handler = relayHandler(() => Promise.resolve(replies[i++]));
  const { page, relay, target } = makeWorlds({ handler });
  createRelay({ window: relay });
  const events = spyEvents(target);
  for (const detail of [{ v: 1 }, 5, null, undefined, ['x']]) {
    page.dispatchEvent(new CustomEvent('webbridge:post', { detail }));
  }
  assert.equal(handler.texts.length, 0);
  for (let k = 0; k < replies.length; k++) {
    page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{}' }));
  }
  await settleMicrotasks();
  assert.equal(handler.texts.length, replies.length);
  assert.equal(events.filter(([type]) => type === 'webbridge:message').length, 0);
});

test('relay never throws: missing handler, throwing handler, rejecting handler, missing location', async () => {
  const { page, relay } = makeWorlds();
  delete relay.webkit;
  delete relay.location;
  createRelay({ window: relay });
  assert.doesNotThrow(() => page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{}' })));
  relay.webkit = { messageHandlers: { webbridge: { postMessage() { throw new Error('boom'); } } } };
  assert.doesNotThrow(() => page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{}' })));
  relay.webkit.messageHandlers.webbridge = { postMessage: () => Promise.reject(new Error('rejected')) };
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{}' }));
  await settleMicrotasks();
  assert.equal(createRelay(null), false);
  assert.equal(createRelay({}), false);
  assert.equal(createRelay({ window: Object.freeze({ addEventListener() {} }) }), false);
});

test('relay is idempotent: evaluated twice, each post reaches native once and one ready per hello', () => {
  const { page, relay, handler, target } = makeWorlds();
  const events = spyEvents(target);
  const ctx = evaluateIn(relay, relaySource());
  evaluateIn(relay, relaySource(), ctx);
  assert.equal(createRelay({ window: relay }), false);
  assert.equal(events.filter(([type]) => type === 'webbridge:ready').length, 1);
  assert.equal(relay.listenerCounts.get('webbridge:post'), 1);
  install(page).call('t', 1, () => {});
  assert.equal(handler.texts.length, 1);
  assert.equal(events.filter(([type]) => type === 'webbridge:ready').length, 2);
});

test('relay exposes nothing to the page world', () => {
  const { page, relay } = makeWorlds();
  const before = Reflect.ownKeys(page);
  createRelay({ window: relay });
  evaluateIn(relay, relaySource());
  assert.deepEqual(Reflect.ownKeys(page), before);
  assert.equal(page.WebBridge, undefined);
  assert.equal(page.webkit, undefined, 'the native handler stays in the relay world');
});

test('a page-world shim with no relay after load settles calls unavailable', async () => {
  const win = makeWindow();
  const bridge = createWebBridge({ window: win });
  const p = bridge.call('t', 1);
  finishLoading(win);
  await assert.rejects(p, (err) => err.code === 'unavailable');
});

// Issue 20, item 1: the relay stamps the document's security origin (`self.origin`), not its URL's.
for (const [what, href, origin, expected] of [
  ['an opaque origin (CSP sandbox, sandboxed iframe) posts "null", not the URL\'s origin', 'https://app.example/page', 'null', 'null'],
  ['a srcdoc document posts the origin it inherits, not its URL\'s "null"', 'about:srcdoc', 'https://app.example', 'https://app.example'],
  ['an about:blank document written by its parent posts the parent\'s origin', 'about:blank', 'https://app.example', 'https://app.example'],
  ['a blob: document posts its creator\'s origin', 'blob:https://app.example/0b9f', 'https://app.example', 'https://app.example'],
]) {
  test('relay: ' + what, () => {
    const { page, relay, handler } = makeWorlds({ href, origin });
    createRelay({ window: relay });
    loadShim().createWebBridge({ window: page }).notify('t', 1);
    assert.equal(handler.messages.length, 1);
    assert.equal(handler.messages[0][0], expected);
    assert.equal(typeof handler.texts[0], 'string', 'one-string form');
  });
}

test('relay: without self.origin (an engine that lacks it) the post carries no origin (null), never location.origin', () => {
  const { page, relay, handler } = makeWorlds({ href: 'https://app.example/', origin: undefined });
  createRelay({ window: relay });
  loadShim().createWebBridge({ window: page }).notify('t', 1);
  assert.equal(handler.messages.length, 1);
  assert.deepEqual(handler.texts[0].slice(0, 2), [null, 'main']);
});

test('relay: CustomEvent and dispatchEvent replaced in its world after install change nothing (captured at install)', () => {
  const { page, relay, handler } = makeWorlds();
  createRelay({ window: relay });
  const bridge = loadShim().createWebBridge({ window: page });
  relay.CustomEvent = function () { throw new Error('replaced'); };
  relay.dispatchEvent = function () { throw new Error('replaced'); };
  let reply = null;
  handler.postMessage = (posted) => { handler.texts.push(posted); return Promise.resolve(JSON.stringify({ v: 1, kind: 'reply', id: JSON.parse(relayEnvelope(posted)[2]).id, ok: true, data: 2 })); };
  bridge.call('t', 1, (r) => { reply = r; });
  return settleMicrotasks(10).then(() => { assert.deepEqual(reply, { ok: true, data: 2 }); });
});

test('a body longer than maxBodyUnits is never posted: only its head and length, the array form [origin, frame, head, length]', () => {
  const { page, relay, handler } = makeWorlds();
  createRelay({ window: relay, maxBodyUnits: 5000 });
  const bridge = install(page);
  bridge.call('big', 'x'.repeat(6000), () => {});
  bridge.call('fits', 'y'.repeat(4000), () => {});
  assert.equal(handler.texts.length, 2);
  const [oversized, fits] = handler.texts;
  assert.ok(Array.isArray(oversized) && oversized.length === 4, 'the oversized form');
  assert.equal(oversized[1], 'main');
  assert.equal(oversized[2].length, 1024, 'the head only');
  assert.ok(oversized[2].startsWith('{"v":1,"kind":"call","id":'), 'the head names the id');
  assert.ok(Number(oversized[3]) > 6000, 'the full length in UTF-16 code units');
  assert.equal(typeof fits, 'string', 'a body within the limit goes as usual');
});

test('as a classic script the relay reads its limit from __webbridgeRelaySettings in its own world', () => {
  const { page, relay, handler } = makeWorlds();
  relay.__webbridgeRelaySettings = { maxBodyUnits: 100 };
  evaluateIn(relay, relaySource());
  const bridge = install(page);
  bridge.call('big', 'x'.repeat(200), () => {});
  assert.equal(handler.texts[0].length, 4);
});

test('a body within maxBodyUnits UTF-16 units but over it in UTF-8 bytes is never posted (wide characters)', () => {
  const { page, relay, handler } = makeWorlds();
  createRelay({ window: relay, maxBodyUnits: 9000 });
  const bridge = install(page);
  bridge.call('wide', '\u4e2d'.repeat(4000), () => {});   // 4,000 units of 3 bytes: 12,000 bytes
  bridge.call('pairs', '\ud83d\ude00'.repeat(2300), () => {}); // 4,600 units, 9,200 bytes
  bridge.call('fits', '\u4e2d'.repeat(2900), () => {});    // 8,700 bytes
  assert.equal(handler.texts.length, 3);
  assert.ok(Array.isArray(handler.texts[0]) && handler.texts[0].length === 4, 'wide: the oversized form');
  assert.ok(Array.isArray(handler.texts[1]) && handler.texts[1].length === 4, 'surrogate pairs: the oversized form');
  assert.equal(typeof handler.texts[2], 'string', 'a body within the limit in bytes goes as usual');
});
