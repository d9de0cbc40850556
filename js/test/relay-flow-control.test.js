'use strict';
// The relay's flow control (docs/protocol.md, "Relay: flow control"). Attack 18: a page script that
// dispatched posts at the relay without waiting made the app copy every body, filling its memory.
// Attack 19: the first bound, on posts awaiting their final answer, dropped cancels and answers to
// native's calls and let one long call hold it. The relay now bounds only what native has not read
// yet; a post that does not fit waits, in order, and a `sync` tells the relay when native has read.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, loadRelay, makeWorlds, relayHandler, settleMicrotasks } = require('../testing/fakes.js');

const { install } = loadShim();
const { createRelay } = loadRelay();

const SYNC = '{"v":1,"kind":"sync"}';

/**
 * A handler that holds every answer for the test (`held[i]` for the i-th post that is not a sync,
 * with `resolve` and `reject`), and answers a sync as native does: once it is read, which the test
 * decides with `answerSyncs()` (every sync posted so far), unless `syncAtOnce`.
 */
function nativeHandler({ syncAtOnce = false } = {}) {
  const held = [];
  const syncs = [];
  const handler = relayHandler((message) => new Promise((resolve, reject) => {
    if (message[2] === SYNC) {
      if (syncAtOnce) { resolve(''); } else { syncs.push(resolve); }
      return;
    }
    held.push({ resolve, reject, body: message[2] });
  }));
  const bodies = () => handler.messages.map((m) => m[2]).filter((b) => b !== SYNC);
  const syncCount = () => handler.messages.filter((m) => m[2] === SYNC).length;
  const answerSyncs = () => { syncs.splice(0).forEach((resolve) => resolve('')); };
  return { handler, held, bodies, syncCount, answerSyncs };
}

/** Lets the relay's later task and the reactions it starts run. */
async function turn(clock, ms = 0) {
  await settleMicrotasks();
  clock.tick(ms);
  await settleMicrotasks();
}

function post(page, body) {
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: body }));
}

test('over maxUnreadPosts a post waits, unrefused, behind one sync; once native answers the sync the waiting posts go, in order', async () => {
  const native = nativeHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 2 });
  const bridge = install(page);
  const outcomes = {};
  for (const key of ['a', 'b', 'c', 'd']) { bridge.call('t', key, (reply) => { outcomes[key] = reply; }); }
  await turn(clock);
  assert.deepEqual(native.bodies().map((b) => JSON.parse(b).options), ['a', 'b'], 'two unread: the others wait');
  assert.equal(native.syncCount(), 1, 'one sync asks native to say when it has read them');
  assert.deepEqual(outcomes, {}, 'nothing is refused');
  native.answerSyncs();
  await turn(clock);
  assert.deepEqual(native.bodies().map((b) => JSON.parse(b).options), ['a', 'b', 'c', 'd'], 'read: the rest go, in order');
  assert.equal(native.syncCount(), 1, 'nothing waits: no other sync');
  native.held[3].resolve(JSON.stringify({ v: 1, kind: 'reply', id: JSON.parse(native.held[3].body).id, ok: true, data: 4 }));
  await turn(clock);
  assert.equal(outcomes.d.data, 4, 'calls still settle with their own answers');
  assert.equal(outcomes.a, undefined, 'a long call keeps running: read is not settled');
});

test("an answer to a later post tells the relay native has read the earlier ones (native reads a frame's posts in order)", async () => {
  const native = nativeHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 2 });
  for (const id of ['a', 'b', 'c']) { post(page, '{"v":1,"kind":"call","id":"' + id + '","task":"t"}'); }
  await turn(clock);
  assert.equal(native.bodies().length, 2);
  native.held[1].resolve('');
  await turn(clock);
  assert.equal(native.bodies().length, 3, 'the answer to b marked a and b read, though a still runs');
});

test('a long call does not hold the byte window once native has read it: a later large call still goes (attack 19)', async () => {
  const native = nativeHandler({ syncAtOnce: true });
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadBytes: 100000 });
  const bridge = install(page);
  bridge.call('Slow', { file: 'x'.repeat(90000) }).catch(() => {});
  await turn(clock);
  bridge.call('Echo', { s: 'z'.repeat(50000) }).catch(() => {});
  await turn(clock);
  await turn(clock);
  assert.equal(native.bodies().length, 2, 'the second call was posted after the sync');
  assert.equal(native.syncCount(), 1);
});

test("at maxUnreadPosts the cancels of aborted calls still reach native, after their calls (attack 19)", async () => {
  const native = nativeHandler({ syncAtOnce: true });
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 2 });
  const bridge = install(page);
  const ac = new AbortController();
  for (let i = 0; i < 3; i++) { bridge.call('Slow', { i }, { signal: ac.signal }).catch(() => {}); }
  await turn(clock);
  ac.abort();
  for (let i = 0; i < 4; i++) { await turn(clock); }
  const kinds = native.bodies().map((b) => { const m = JSON.parse(b); return m.kind + ':' + m.id; });
  const ids = native.bodies().filter((b) => JSON.parse(b).kind === 'call').map((b) => JSON.parse(b).id);
  assert.equal(ids.length, 3);
  for (const id of ids) {
    assert.ok(kinds.indexOf('cancel:' + id) > kinds.indexOf('call:' + id), `cancel of ${id} after its call: ${kinds}`);
  }
});

test("at maxUnreadPosts the page's answer to native's call still reaches native (attack 19)", async () => {
  const native = nativeHandler({ syncAtOnce: true });
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 1 });
  const bridge = install(page);
  bridge.handle('Ping', () => 'pong');
  bridge.call('Slow', {}).catch(() => {});
  await turn(clock);
  relay.dispatchEvent(new CustomEvent('webbridge:message', { detail: JSON.stringify({ v: 1, kind: 'call', id: 'n1', task: 'Ping', options: null }) }));
  for (let i = 0; i < 4; i++) { await turn(clock); }
  const replies = native.bodies().filter((b) => JSON.parse(b).kind === 'reply');
  assert.equal(replies.length, 1, `posts: ${JSON.stringify(native.handler.texts)}`);
  assert.equal(JSON.parse(replies[0]).data, 'pong');
});

test('a flood of page-made posts crosses at most maxUnreadPosts at a time, nothing dropped, in order, with one sync per window', async () => {
  const native = nativeHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 10 });
  for (let i = 0; i < 1000; i++) { post(page, '{"kind":"call","id":"p' + i + '","task":"t"}'); }
  await turn(clock);
  assert.equal(native.bodies().length, 10, 'ten unread; 990 wait in the page');
  for (let round = 0; round < 200 && native.bodies().length < 1000; round++) {
    native.answerSyncs();
    await turn(clock);
  }
  const ids = native.bodies().map((b) => JSON.parse(b).id);
  assert.deepEqual(ids, Array.from({ length: 1000 }, (_, i) => 'p' + i));
  assert.ok(native.syncCount() <= 101, `syncs: ${native.syncCount()}`);
});

test('the byte window counts UTF-8: a large ASCII body by its length, any other text at three bytes per UTF-16 code unit', async () => {
  for (const [filler, expected] of [['x', 2], ['\u4e00', 1]]) {
    const native = nativeHandler();
    const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
    createRelay({ window: relay, maxUnreadBytes: 300000 });
    const body = JSON.stringify({ v: 1, kind: 'call', id: 'a', task: 't', options: filler.repeat(70000) });
    post(page, body);
    post(page, body.replace('"a"', '"b"'));
    await turn(clock);
    assert.equal(native.bodies().length, expected, `${JSON.stringify(filler)}: ${expected} of two unread at once`);
  }
});

test('one body larger than the byte window goes when nothing else is unread', async () => {
  const native = nativeHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadBytes: 1000 });
  post(page, '{"v":1,"kind":"call","id":"big","task":"t","options":"' + 'x'.repeat(5000) + '"}');
  post(page, '{"v":1,"kind":"call","id":"small","task":"t"}');
  await turn(clock);
  assert.deepEqual(native.bodies().map((b) => JSON.parse(b).id), ['big']);
  native.answerSyncs();
  await turn(clock);
  assert.deepEqual(native.bodies().map((b) => JSON.parse(b).id), ['big', 'small']);
});

test('a call native turned away unread ("bridgekit:busy") settles memory_budget_exceeded and the frame pauses its posts; another rejection invents nothing', async () => {
  const native = nativeHandler({ syncAtOnce: true });
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay });
  const bridge = install(page);
  const outcomes = {};
  for (const key of ['busy', 'other']) { bridge.call('t', key, (reply) => { outcomes[key] = reply; }); }
  await turn(clock);
  native.held[0].reject(new Error('bridgekit:busy: the view has too many messages queued'));
  native.held[1].reject(new Error('something else'));
  await turn(clock);
  assert.equal(outcomes.busy.error.code, 'memory_budget_exceeded');
  assert.equal(outcomes.other, undefined, 'not settled by the relay');
  bridge.call('t', 'later', () => {});
  await turn(clock);
  assert.equal(native.bodies().length, 2, 'paused after a busy answer');
  await turn(clock, 50);
  assert.equal(native.bodies().length, 3, 'posts again after the pause');
});

test('a busy answer gives its call id back as data, only when the shim wrote the body; an id that would need an escape gets nothing', async () => {
  const native = nativeHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay });
  const seen = [];
  page.addEventListener('webbridge:message', (e) => seen.push(e.detail));
  post(page, '{"v":1,"kind":"call","id":"a\\"b","task":"t"}');
  post(page, '{"kind":"call","id":"made","task":"t"}');
  post(page, '{"v":1,"kind":"call","id":"</script><x>","task":"t"}');
  await turn(clock);
  native.held.forEach((h) => h.reject(new Error('bridgekit:busy: full')));
  await turn(clock);
  assert.equal(seen.length, 1, 'the escaped id and the page-made body got nothing');
  assert.deepEqual(JSON.parse(seen[0]), { error: { code: 'memory_budget_exceeded', message: "The app is busy with this page's earlier messages." }, id: '</script><x>', kind: 'reply', ok: false, v: 1 });
});

// Attack 20: a post native turned away busy was lost unless the shim wrote it as a call; the
// protocol promises that a cancel, or the page's reply to a native call, always reaches native.
for (const [name, body] of [
  ['a cancel', '{"v":1,"kind":"cancel","id":"k1"}'],
  ["the page's reply to a native call", '{"v":1,"kind":"reply","id":"n1","ok":true,"data":"pong"}'],
]) {
  test(`${name} that native turned away busy is posted again after the pause, not lost (attack 20)`, async () => {
    const native = nativeHandler({ syncAtOnce: true });
    const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
    createRelay({ window: relay, maxUnreadPosts: 4096, maxUnreadBytes: 16 << 20 });
    post(page, '{"v":1,"kind":"call","id":"k1","task":"Slow"}');
    post(page, body);
    await turn(clock);
    assert.equal(native.bodies().length, 2);
    native.held[1].reject(new Error("bridgekit:busy: this page's earlier messages are still waiting for the app"));
    await turn(clock);
    assert.equal(native.bodies().filter((b) => b === body).length, 1, 'held for the pause');
    for (let i = 0; i < 5; i++) { await turn(clock, 60); }
    assert.equal(native.bodies().filter((b) => b === body).length, 2, 'posted again once');
  });
}

test("page-made syncs and fake webbridge:message events leave the relay's accounting of legitimate posts intact (attack 20)", async () => {
  const native = nativeHandler({ syncAtOnce: true });
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 2 });
  for (let i = 0; i < 20; i++) {
    post(page, SYNC);
    page.dispatchEvent(new CustomEvent('webbridge:message', { detail: '{"v":1,"kind":"reply","id":"x","ok":true}' }));
  }
  for (const id of ['a', 'b', 'c']) { post(page, '{"v":1,"kind":"call","id":"' + id + '","task":"t"}'); }
  await turn(clock);
  for (let i = 0; i < 10; i++) { await turn(clock, 60); }
  assert.deepEqual(native.bodies().map((b) => JSON.parse(b).id), ['a', 'b', 'c'], 'every legitimate post goes, in order');
});

test('a post native rejected with anything but bridgekit:busy is never posted again: what came after it keeps its place (attack 22)', async () => {
  const native = nativeHandler({ syncAtOnce: true });
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay });
  const body = '{"v":1,"kind":"call","id":"big","task":"t","options":"' + 'x'.repeat(70000) + '"}';
  post(page, body);
  post(page, '{"v":1,"kind":"cancel","id":"big"}');
  await turn(clock);
  native.held[0].reject(new Error('bridgekit:unread: the app read only this message\'s head; post it again'));
  for (let i = 0; i < 5; i++) { await turn(clock, 60); }
  assert.deepEqual(native.bodies().map((b) => JSON.parse(b).kind + ' ' + JSON.parse(b).id), ['call big', 'cancel big']);
});

// Attack 21: posts turned away busy together went again in reverse order.
for (const [name, bodies] of [
  ['answers and a cancel', [
    '{"v":1,"kind":"reply","id":"n1","ok":true,"data":"first"}',
    '{"v":1,"kind":"reply","id":"n2","ok":true,"data":"second"}',
    '{"v":1,"kind":"cancel","id":"k3"}',
  ]],
  ['fire-and-forget calls (no id)', [
    '{"v":1,"kind":"call","task":"cart.add","options":{"sku":"A-1"}}',
    '{"v":1,"kind":"call","task":"cart.checkout"}',
  ]],
]) {
  test(`${name} turned away busy together go again in the order the page posted them (attack 21)`, async () => {
    const native = nativeHandler({ syncAtOnce: true });
    const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
    createRelay({ window: relay, maxUnreadPosts: 4096, maxUnreadBytes: 16 << 20 });
    for (const body of bodies) { post(page, body); }
    await turn(clock);
    assert.equal(native.bodies().length, bodies.length);
    for (const held of native.held.slice()) { held.reject(new Error("bridgekit:busy: this page's earlier messages are still waiting for the app")); }
    await turn(clock);
    for (let i = 0; i < 5; i++) { await turn(clock, 60); }
    assert.deepEqual(native.bodies().slice(bodies.length), bodies);
  });
}

// A sync native turned away busy (its view's inbound budget was full) threw a ReferenceError in
// the relay's handler, before the pause: the frame's waiting posts stayed in the page until some
// later answer came, and with 64 unread posts per frame a sync is common.
test('a sync native turned away busy pauses the frame, then asks again; the waiting posts still go, in order', async () => {
  let syncs = 0;
  const bodies = [];
  const handler = relayHandler((message) => new Promise((resolve, reject) => {
    if (message[2] === SYNC) {
      syncs += 1;
      if (syncs === 1) { reject(new Error('bridgekit:busy: the view has too many messages queued')); } else { resolve(''); }
      return;
    }
    bodies.push(message[2]);
  }));
  const { page, relay, clock } = makeWorlds({ handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 2 });
  for (const id of ['a', 'b', 'c', 'd']) { post(page, '{"v":1,"kind":"call","id":"' + id + '","task":"t"}'); }
  await turn(clock);
  assert.deepEqual(bodies.map((b) => JSON.parse(b).id), ['a', 'b'], 'two unread: the others wait');
  assert.equal(syncs, 1, 'one sync, turned away busy');
  await turn(clock, 50);
  await turn(clock);
  assert.equal(syncs, 2, 'after the pause the frame asks again');
  assert.deepEqual(bodies.map((b) => JSON.parse(b).id), ['a', 'b', 'c', 'd'], 'read: the rest go, in order');
});
