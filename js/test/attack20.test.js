'use strict';
// Attack 20 on the relay's flow control (docs/protocol.md, "Relay: flow control"): a post native
// turns away unread ("bridgekit:busy") is lost unless the shim wrote it as a call. The protocol
// promises that "a cancel, or the page's reply to a native call, always reaches native after what
// came before it"; the view's budget turns the main frame's posts away busy when page-world
// handlers (bridgehost's console handler) fill it (Attack20Tests: 0 of 20 aborted calls cancelled
// in the app, callPage answers lost). Turned away busy, they must be posted again after the pause.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadRelay, makeWorlds, relayHandler, settleMicrotasks } = require('../testing/fakes.js');

const { createRelay } = loadRelay();
const SYNC = '{"v":1,"kind":"sync"}';

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

const BUSY = 'bridgekit:busy: this page\'s earlier messages are still waiting for the app';

for (const [name, body] of [
  ['a cancel', '{"v":1,"kind":"cancel","id":"k1"}'],
  ["the page's reply to a native call", '{"v":1,"kind":"reply","id":"n1","ok":true,"data":"pong"}'],
]) {
  test(`${name} that native turned away busy is posted again after the pause, not lost`, async () => {
    const native = nativeHandler();
    const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
    createRelay({ window: relay, maxUnreadPosts: 4096, maxUnreadBytes: 16 << 20 });
    post(page, '{"v":1,"kind":"call","id":"k1","task":"Slow"}');
    post(page, body);
    await turn(clock);
    assert.equal(native.bodies().length, 2);
    native.held[1].reject(new Error(BUSY));
    await turn(clock);
    for (let i = 0; i < 5; i++) { await turn(clock, 60); }
    const reposted = native.bodies().filter((b) => b === body).length;
    assert.equal(reposted, 2, `${name} turned away busy reached native again: posted ${reposted} time(s)`);
  });
}

test('a page-made sync, and fake webbridge:message events, leave the relay\'s accounting of legitimate posts intact', async () => {
  // Held up: recorded for the report (passes on 259802c).
  const native = nativeHandler();
  const { page, relay, clock } = makeWorlds({ handler: native.handler, href: 'https://app.example/' });
  createRelay({ window: relay, maxUnreadPosts: 2 });
  for (let i = 0; i < 20; i++) {
    post(page, SYNC);
    page.dispatchEvent(new CustomEvent('webbridge:message', { detail: '{"v":1,"kind":"reply","id":"x","ok":true}' }));
  }
  post(page, '{"v":1,"kind":"call","id":"a","task":"t"}');
  post(page, '{"v":1,"kind":"call","id":"b","task":"t"}');
  post(page, '{"v":1,"kind":"call","id":"c","task":"t"}');
  await turn(clock);
  for (let i = 0; i < 10; i++) { await turn(clock, 60); }
  const ids = native.bodies().filter((b) => b !== SYNC).map((b) => JSON.parse(b).id);
  assert.deepEqual(ids, ['a', 'b', 'c'], 'every legitimate post goes, in order');
});
