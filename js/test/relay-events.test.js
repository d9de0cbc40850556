'use strict';
// The events between the page world and the relay's world: the shim re-uses one `webbridge:post`
// event and the relay one `webbridge:message` event (docs/performance.md, "Where the 100 B time
// goes"), emptied after each dispatch; a post during that dispatch, or an engine without
// initCustomEvent, still gets its own event.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, loadRelay, makeWorlds, relayHandler, settleMicrotasks } = require('../testing/fakes.js');

const { install } = loadShim();
const { createRelay } = loadRelay();

/** A handler that answers every call with {echo: options}, as a Promise of the reply text. */
function echoHandler() {
  return relayHandler((envelope) => {
    const m = JSON.parse(envelope[2]);
    return Promise.resolve(JSON.stringify({ v: 1, kind: 'reply', id: m.id, ok: true, data: { echo: m.options } }));
  });
}

/** Records each event of `type` on the shared target, with its detail as seen during the dispatch. */
function captureEvents(target, type) {
  const seen = [];
  target.addEventListener(type, (event) => { seen.push({ event, detail: event.detail }); });
  return seen;
}

test('one post event and one reply event serve every call; each is emptied after its dispatch', async () => {
  const { page, relay, target } = makeWorlds({ handler: echoHandler() });
  createRelay({ window: relay });
  const bridge = install(page);
  const posts = captureEvents(target, 'webbridge:post');
  const replies = captureEvents(target, 'webbridge:message');
  const results = [];
  for (let i = 0; i < 3; i++) { results.push(await bridge.call('echo', { n: i })); }
  assert.deepEqual(results, [{ echo: { n: 0 } }, { echo: { n: 1 } }, { echo: { n: 2 } }]);
  assert.equal(posts.length, 3);
  assert.equal(replies.length, 3);
  assert.ok(posts.every((p) => p.event === posts[0].event), 'the same post event each time');
  assert.ok(replies.every((r) => r.event === replies[0].event), 'the same reply event each time');
  assert.deepEqual(posts.map((p) => JSON.parse(p.detail).options), [{ n: 0 }, { n: 1 }, { n: 2 }]);
  assert.equal(posts[0].event.detail, null, 'the post event holds no text after its dispatch');
  assert.equal(replies[0].event.detail, null, 'the reply event holds no text after its dispatch');
});

test('a call made by a page listener of webbridge:post during the dispatch is posted too (an event of its own)', async () => {
  const { page, relay, target, handler } = makeWorlds({ handler: echoHandler() });
  createRelay({ window: relay });
  const bridge = install(page);
  let inner = null;
  let called = false;
  const posts = captureEvents(target, 'webbridge:post');
  target.addEventListener('webbridge:post', () => {
    if (!called) {
      called = true;
      inner = bridge.call('inner', 2);
    }
  });
  const outer = await bridge.call('outer', 1);
  assert.deepEqual(outer, { echo: 1 });
  assert.deepEqual(await inner, { echo: 2 });
  assert.deepEqual(handler.messages.map((m) => JSON.parse(m[2]).task).sort(), ['inner', 'outer']);
  assert.notEqual(posts[0].event, posts[1].event, 'the nested post could not re-use the event being dispatched');
  assert.equal(bridge.pendingCount(), 0);
});

test('without initCustomEvent (Node\'s CustomEvent) every post and reply gets a new event, and calls work', async () => {
  const { page, relay, target } = makeWorlds({ handler: echoHandler(), CustomEvent });
  createRelay({ window: relay });
  const bridge = install(page);
  const posts = captureEvents(target, 'webbridge:post');
  const replies = captureEvents(target, 'webbridge:message');
  assert.deepEqual(await bridge.call('echo', 'a'), { echo: 'a' });
  assert.deepEqual(await bridge.call('echo', 'b'), { echo: 'b' });
  assert.notEqual(posts[0].event, posts[1].event);
  assert.notEqual(replies[0].event, replies[1].event);
});

test('a page that keeps, re-initialises and re-dispatches the reply event changes nothing for later replies', async () => {
  const { page, relay, target } = makeWorlds({ handler: echoHandler() });
  createRelay({ window: relay });
  const bridge = install(page);
  const replies = captureEvents(target, 'webbridge:message');
  assert.deepEqual(await bridge.call('echo', 1), { echo: 1 });
  const kept = replies[0].event;
  const forged = JSON.stringify({ v: 1, kind: 'reply', id: 'nobody', ok: true, data: 'forged' });
  kept.initCustomEvent('webbridge:message', false, false, forged);
  target.dispatchEvent(kept);
  assert.deepEqual(await bridge.call('echo', 2), { echo: 2 });
  await settleMicrotasks();
  assert.deepEqual(JSON.parse(replies[replies.length - 1].detail).data, { echo: 2 });
  assert.equal(replies[replies.length - 1].event, kept, 'the relay still re-uses it');
  assert.equal(kept.detail, null, 'the relay emptied it again after its own dispatch');
});
