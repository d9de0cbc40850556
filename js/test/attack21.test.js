'use strict';
// Attack 21 on the relay's busy re-queue (b310a82): a non-call post native turned away
// `bridgekit:busy` is put back "first" in the waiting posts (`waiting.splice(waitingHead, 0, …)`).
// When several posts of one burst are turned away busy (the view's queue was full for all of
// them, the usual case), each rejection handler puts its post in front of the one before: they
// go again in reverse order. docs/protocol.md promises that a frame's posts reach native in order.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadRelay, makeWorlds, relayHandler, settleMicrotasks } = require('../testing/fakes.js');

const { createRelay } = loadRelay();
const SYNC = '{"v":1,"kind":"sync"}';
const BUSY = 'bridgekit:busy: this page\'s earlier messages are still waiting for the app';

function nativeHandler() {
  const held = [];
  const handler = relayHandler((message) => new Promise((resolve, reject) => {
    if (message[2] === SYNC) { resolve(''); return; }
    held.push({ resolve, reject, body: message[2] });
  }));
  const bodies = () => handler.messages.map((m) => m[2]).filter((b) => b !== SYNC);
  return { handler, held, bodies };
}

async function turn(clock, ms = 0) {
  await settleMicrotasks();
  clock.tick(ms);
  await settleMicrotasks();
}

function post(page, body) {
  page.dispatchEvent(new CustomEvent('webbridge:post', { detail: body }));
}

test('non-call posts turned away busy together go again in the order the page posted them', async () => {
  const native = nativeHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 4096, maxUnreadBytes: 16 << 20 });
  const bodies = [
    '{"v":1,"kind":"reply","id":"n1","ok":true,"data":"first"}',
    '{"v":1,"kind":"reply","id":"n2","ok":true,"data":"second"}',
    '{"v":1,"kind":"cancel","id":"k3"}',
  ];
  for (const body of bodies) { post(page, body); }
  await turn(clock);
  assert.equal(native.bodies().length, 3);
  // The view's queue is full: native turns all three away unread, in order.
  for (const held of native.held.slice()) { held.reject(new Error(BUSY)); }
  await turn(clock);
  for (let i = 0; i < 5; i++) { await turn(clock, 60); }
  const again = native.bodies().slice(3);
  assert.deepEqual(again, bodies, 'the posts turned away went again in the page\'s order');
});

test('fire-and-forget calls (no id) turned away busy together go again in the order the page posted them', async () => {
  // docs/protocol.md: a call without an id is a notification; callID() finds no id, so the relay
  // re-queues it like a cancel, and a burst of them comes back reversed (cart.add after checkout).
  const native = nativeHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 4096, maxUnreadBytes: 16 << 20 });
  const bodies = [
    '{"v":1,"kind":"call","task":"cart.add","options":{"sku":"A-1"}}',
    '{"v":1,"kind":"call","task":"cart.checkout"}',
  ];
  for (const body of bodies) { post(page, body); }
  await turn(clock);
  for (const held of native.held.slice()) { held.reject(new Error(BUSY)); }
  await turn(clock);
  for (let i = 0; i < 5; i++) { await turn(clock, 60); }
  assert.deepEqual(native.bodies().slice(2), bodies, 'the notifications went again in the page\'s order');
});
