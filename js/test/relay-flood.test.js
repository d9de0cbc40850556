'use strict';
// Attack 18: a page script that dispatches posts at the relay without waiting (it need not use the
// shim) made the app copy every body and queue it, filling its memory and holding up every other
// web view. The relay now bounds what awaits native's answer per frame, and answers a call over
// the bound itself, as native would.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, loadRelay, makeWorlds, relayHandler, settleMicrotasks } = require('../testing/fakes.js');

const { install } = loadShim();
const { createRelay } = loadRelay();

/** A handler whose answers the test gives: `answer(i, value)`, `reject(i, error)`. */
function heldHandler() {
  const held = [];
  const handler = relayHandler(() => new Promise((resolve, reject) => { held.push({ resolve, reject }); }));
  return { handler, held };
}

/** Lets the relay's later task and the reactions it starts run. */
async function turn(clock) {
  await settleMicrotasks();
  clock.tick(0);
  await settleMicrotasks();
}

/** Calls `task` through the shim and records its outcome in `outcomes[key]`. */
function call(bridge, outcomes, key, options) {
  bridge.call('t', options === undefined ? key : options, (reply) => { outcomes[key] = reply; });
}

test('over maxPendingPosts, a shim call is not posted and settles too_many_pending_calls; room comes back with each answer', async () => {
  const { handler, held } = heldHandler();
  const { page, relay, clock } = makeWorlds({ handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxPendingPosts: 2 });
  const bridge = install(page);
  const outcomes = {};
  for (const key of ['a', 'b', 'c']) { call(bridge, outcomes, key); }
  await settleMicrotasks();
  assert.equal(outcomes.c, undefined, "a refusal comes in a later task, as native's answer would");
  await turn(clock);
  assert.equal(handler.texts.length, 2, 'the third call was not posted');
  assert.equal(outcomes.c && outcomes.c.ok, false);
  assert.equal(outcomes.c.error.code, 'too_many_pending_calls');
  assert.equal(outcomes.a, undefined, 'the posted calls still wait for native');
  const first = JSON.parse(handler.messages[0][2]);
  held[0].resolve(JSON.stringify({ v: 1, kind: 'reply', id: first.id, ok: true, data: 1 }));
  await turn(clock);
  assert.equal(outcomes.a.ok, true);
  call(bridge, outcomes, 'd');
  await turn(clock);
  assert.equal(handler.texts.length, 3, 'an answer made room for one more');
});

test('over maxPendingUnits, a call is answered memory_budget_exceeded; one body larger than the budget still goes alone', async () => {
  const { handler, held } = heldHandler();
  const { page, relay, clock } = makeWorlds({ handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxPendingUnits: 1000 });
  const bridge = install(page);
  const outcomes = {};
  call(bridge, outcomes, 'big', 'x'.repeat(5000));
  call(bridge, outcomes, 'small', 'y');
  await turn(clock);
  assert.equal(handler.texts.length, 1, 'the large body went alone; the next waits for room');
  assert.equal(outcomes.small.error.code, 'memory_budget_exceeded');
  held[0].resolve(undefined);
  await turn(clock);
  call(bridge, outcomes, 'after', 'z');
  await turn(clock);
  assert.equal(handler.texts.length, 2);
});

test('a page-made post over the bound is dropped: nothing is posted and no reply is invented', async () => {
  const { handler } = heldHandler();
  const { page, relay, clock } = makeWorlds({ handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxPendingPosts: 1 });
  const seen = [];
  page.addEventListener('webbridge:message', (e) => seen.push(e.detail));
  for (let i = 0; i < 1000; i++) {
    page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{"kind":"call","id":"p' + i + '","task":"t"}' }));
  }
  await turn(clock);
  assert.equal(handler.texts.length, 1, 'one awaits native; the other 999 never left the page');
  assert.deepEqual(seen, []);
});

test('a call native turned away unread (rejected "bridgekit:busy") settles memory_budget_exceeded; another rejection invents nothing', async () => {
  const { handler, held } = heldHandler();
  const { page, relay, clock } = makeWorlds({ handler, href: 'https://app.example/' });
  createRelay({ window: relay });
  const bridge = install(page);
  const outcomes = {};
  call(bridge, outcomes, 'busy');
  call(bridge, outcomes, 'other');
  await turn(clock);
  held[0].reject(new Error('bridgekit:busy: the view has too many messages queued'));
  held[1].reject(new Error('something else'));
  await turn(clock);
  assert.equal(outcomes.busy.error.code, 'memory_budget_exceeded');
  assert.equal(outcomes.other, undefined, 'not settled by the relay');
});

test('the call id is read only from a body the shim wrote; an id that would need an escape is not read', () => {
  const { handler } = heldHandler();
  const { page, relay, clock } = makeWorlds({ handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxPendingPosts: 1 });
  const seen = [];
  page.addEventListener('webbridge:message', (e) => seen.push(e.detail));
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{"v":1,"kind":"call","id":"first","task":"t"}' }));
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{"v":1,"kind":"call","id":"a\\"b","task":"t"}' }));
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: '{"v":1,"kind":"call","id":"</script><x>","task":"t"}' }));
  return turn(clock).then(() => {
    assert.equal(seen.length, 1, 'the escaped id got nothing');
    const reply = JSON.parse(seen[0]);
    assert.deepEqual(reply, { error: { code: 'too_many_pending_calls', message: 'Too many messages are waiting for the app.' }, id: '</script><x>', kind: 'reply', ok: false, v: 1 });
  });
});
