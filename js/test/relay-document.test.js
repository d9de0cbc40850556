'use strict';
// The relay serves one document (attack 25). `window` in its world is the frame's window proxy,
// which reaches the frame's next document once it commits: an answer native gave to an iframe's
// call after the iframe navigated to another page of the same origin was dispatched to that page
// as `webbridge:message`, with the earlier document's data. Nothing crosses to another document:
// neither answers nor the earlier document's waiting posts.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadRelay, makeWorlds, relayHandler, settleMicrotasks } = require('../testing/fakes.js');

const { createRelay } = loadRelay();

/** A handler that holds every answer for the test. */
function holdingHandler() {
  const held = [];
  const handler = relayHandler((message) => new Promise((resolve) => { held.push({ resolve, body: message[2] }); }));
  return { handler, held };
}

function post(page, body) {
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: body }));
}

/** What the frame's next document sees of the channel: the `webbridge:message` events dispatched to it. */
function navigate(page, relay) {
  const next = { readyState: 'loading' };
  page.document = next;
  relay.document = next;
  const seen = [];
  page.addEventListener('webbridge:message', (event) => { seen.push(event.detail); });
  return seen;
}

test("an answer that comes after the frame showed another document is not handed to that document", async () => {
  const native = holdingHandler();
  const { page, relay } = makeWorlds({ handler: native.handler, href: 'https://b.example/one', subframe: true });
  createRelay({ window: relay, maxUnreadPosts: 64 });
  post(page, '{"v":1,"kind":"call","id":"p-1","task":"Slow"}');
  await settleMicrotasks();
  assert.equal(native.held.length, 1);
  const seen = navigate(page, relay);
  native.held[0].resolve('{"v":1,"kind":"reply","id":"p-1","ok":true,"data":"secret of the first document"}');
  await settleMicrotasks();
  assert.deepEqual(seen, [], 'the next document got nothing');
});

test("the earlier document's waiting posts never leave once the frame shows another document", async () => {
  const native = holdingHandler();
  const { page, relay } = makeWorlds({ handler: native.handler, href: 'https://b.example/one', subframe: true });
  createRelay({ window: relay, maxUnreadPosts: 1 });
  post(page, '{"v":1,"kind":"call","id":"p-1","task":"Slow"}');
  post(page, '{"v":1,"kind":"call","id":"p-2","task":"Slow"}');
  await settleMicrotasks();
  const posted = () => native.handler.messages.map((m) => m[2]).filter((b) => b.includes('"call"'));
  assert.equal(posted().length, 1, 'p-2 waits for room');
  navigate(page, relay);
  native.held[0].resolve('');
  await settleMicrotasks();
  assert.equal(posted().length, 1, 'p-2 did not leave from the next document');
});

test('the same document keeps its answers (a document.open() does not change the document)', async () => {
  const native = holdingHandler();
  const { page, relay } = makeWorlds({ handler: native.handler, href: 'https://b.example/one', subframe: true });
  createRelay({ window: relay, maxUnreadPosts: 64 });
  const seen = [];
  page.addEventListener('webbridge:message', (event) => { seen.push(event.detail); });
  post(page, '{"v":1,"kind":"call","id":"p-1","task":"Slow"}');
  await settleMicrotasks();
  native.held[0].resolve('{"v":1,"kind":"reply","id":"p-1","ok":true,"data":1}');
  await settleMicrotasks();
  assert.equal(seen.length, 1);
});

test("a second evaluation in the same window (the initial about:blank replaced) binds the relay to the window's new document", async () => {
  const native = holdingHandler();
  const { page, relay } = makeWorlds({ handler: native.handler, href: 'https://b.example/one', subframe: true });
  createRelay({ window: relay, maxUnreadPosts: 64 });
  const seen = navigate(page, relay);
  assert.equal(createRelay({ window: relay, maxUnreadPosts: 64 }), false, 'installed once per window');
  post(page, '{"v":1,"kind":"call","id":"q-1","task":"Slow"}');
  await settleMicrotasks();
  assert.equal(native.held.length, 1, "the new document's post left");
  native.held[0].resolve('{"v":1,"kind":"reply","id":"q-1","ok":true,"data":2}');
  await settleMicrotasks();
  assert.equal(seen.length, 1, 'and its answer reached it');
});

/** A `pagehide` as the browser dispatches it (`isTrusted`, which a page's own event never is). */
function pageHide(win, { persisted = false, trusted = true } = {}) {
  const event = new Event('pagehide');
  Object.defineProperty(event, 'persisted', { value: persisted });
  if (trusted) { Object.defineProperty(event, 'isTrusted', { value: true }); }
  win.dispatchEvent(event);
}

const cancels = (handler) => handler.messages.map((m) => m[2]).filter((b) => b.includes('"kind":"cancel"'));

test("a subframe's document that goes away for good cancels its calls native has not answered", async () => {
  const native = holdingHandler();
  const { page, relay } = makeWorlds({ handler: native.handler, href: 'https://b.example/one', subframe: true });
  createRelay({ window: relay, maxUnreadPosts: 64 });
  for (const id of ['p-1', 'p-2', 'p-3']) { post(page, '{"v":1,"kind":"call","id":"' + id + '","task":"Slow"}'); }
  await settleMicrotasks();
  native.held[1].resolve('{"v":1,"kind":"reply","id":"p-2","ok":true,"data":1}');
  await settleMicrotasks();
  pageHide(relay);
  assert.deepEqual(cancels(native.handler), ['{"v":1,"kind":"cancel","id":"p-1"}', '{"v":1,"kind":"cancel","id":"p-3"}']);
  const stamps = native.handler.messages.filter((m) => m[2].includes('"kind":"cancel"')).map((m) => [m[0], m[1]]);
  assert.deepEqual(stamps, [['https://b.example', 'sub'], ['https://b.example', 'sub']], 'stamped as the document that made the calls');
  pageHide(relay);
  assert.equal(cancels(native.handler).length, 2, 'once');
});

test('no cancel for a page kept in the back-forward cache, a pagehide a page dispatched itself, or a main frame', async () => {
  for (const [subframe, options] of [[true, { persisted: true }], [true, { trusted: false }], [false, {}]]) {
    const native = holdingHandler();
    const { page, relay } = makeWorlds({ handler: native.handler, href: 'https://b.example/one', subframe });
    createRelay({ window: relay, maxUnreadPosts: 64 });
    post(page, '{"v":1,"kind":"call","id":"p-1","task":"Slow"}');
    await settleMicrotasks();
    pageHide(relay, options);
    assert.deepEqual(cancels(native.handler), [], JSON.stringify({ subframe, options }));
  }
});

test("a subframe's calls made after its document ended (from the page's own pagehide listener, a timer) never leave; each is answered navigated", async () => {
  const native = holdingHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://b.example/one', subframe: true });
  createRelay({ window: relay, maxUnreadPosts: 1 });
  const seen = [];
  page.addEventListener('webbridge:message', (event) => { seen.push(JSON.parse(event.detail)); });
  post(page, '{"v":1,"kind":"call","id":"p-1","task":"Slow"}');
  post(page, '{"v":1,"kind":"call","id":"p-2","task":"Slow"}');  // waits for room
  // The page's own pagehide listener, after the relay's, calls again.
  page.addEventListener('pagehide', () => { post(page, '{"v":1,"kind":"call","id":"p-3","task":"Slow"}'); });
  await settleMicrotasks();
  pageHide(relay);
  post(page, '{"v":1,"kind":"call","id":"p-4","task":"Slow"}');
  post(page, '{"v":1,"kind":"reply","id":"n-1","ok":true,"data":1}');
  native.held[0].resolve('');
  await settleMicrotasks();
  const calls = native.handler.messages.map((m) => m[2]).filter((b) => b.includes('"kind":"call"'));
  assert.deepEqual(calls, ['{"v":1,"kind":"call","id":"p-1","task":"Slow"}'], 'only the call made before the end left');
  assert.deepEqual(cancels(native.handler), ['{"v":1,"kind":"cancel","id":"p-1"}']);
  const posted = native.handler.messages.map((m) => m[2]).filter((b) => !b.includes('"kind":"sync"'));
  assert.equal(posted.length, 2, 'nothing else was posted: ' + JSON.stringify(posted));
  clock.tick(1);
  await settleMicrotasks();
  const answered = seen.filter((m) => m.kind === 'reply').map((m) => [m.id, m.error && m.error.code]);
  assert.deepEqual(answered.sort(), [['p-2', 'navigated'], ['p-3', 'navigated'], ['p-4', 'navigated']]);
});

test("a new document in the same window (a second evaluation) is served again after the earlier one ended", async () => {
  const native = holdingHandler();
  const { page, relay } = makeWorlds({ handler: native.handler, href: 'https://b.example/one', subframe: true });
  createRelay({ window: relay, maxUnreadPosts: 64 });
  pageHide(relay);
  navigate(page, relay);
  createRelay({ window: relay, maxUnreadPosts: 64 });
  post(page, '{"v":1,"kind":"call","id":"q-1","task":"Slow"}');
  await settleMicrotasks();
  assert.equal(native.held.length, 1, "the new document's call left");
});
