'use strict';
// History notices: pushState/replaceState/popstate become deferred fire-and-forget "History" calls.
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  loadShim, makeWindow, recordingHandler, shimSource, evaluateIn, finishLoading,
} = require('../testing/fakes.js');

const { createWebBridge, install } = loadShim();

function setup(options) {
  const handler = recordingHandler();
  const win = makeWindow({ handler, ...options });
  const bridge = install(win);
  const notices = () => handler.messages.filter((m) => m.task === 'History');
  return { win, handler, bridge, notices, clock: win.clock };
}

test('R48 pushState, replaceState and popstate each send one History notice, in order, with absolute URLs read after the change', () => {
  const { win, handler, notices, clock } = setup({ href: 'https://app.example/' });
  win.history.pushState({ p: 1 }, '', '/orders/7');
  win.history.replaceState(null, '', '?tab=2');
  win.location.href = 'https://app.example/';
  win.dispatchEvent(new Event('popstate'));
  assert.equal(handler.texts.length, 0, 'notices are deferred, never sent inside pushState');
  clock.tick(0);
  assert.deepEqual(handler.messages, [
    { v: 1, kind: 'call', task: 'History', options: { type: 'pushState', url: 'https://app.example/orders/7' } },
    { v: 1, kind: 'call', task: 'History', options: { type: 'replaceState', url: 'https://app.example/orders/7?tab=2' } },
    { v: 1, kind: 'call', task: 'History', options: { type: 'popstate', url: 'https://app.example/' } },
  ]);
  assert.equal(notices().length, 3);
});

test('R48 several changes in one task keep their own URLs (read synchronously, sent later)', () => {
  const { win, notices, clock } = setup({ href: 'https://app.example/a' });
  win.history.pushState(null, '', 'b');
  win.history.pushState(null, '', '../c/d#frag');
  win.history.back();
  clock.tick(0);
  assert.deepEqual(notices().map((m) => [m.options.type, m.options.url]), [
    ['pushState', 'https://app.example/b'],
    ['pushState', 'https://app.example/c/d#frag'],
    ['popstate', 'https://app.example/b'],
  ]);
});

test('R48 the wrapper calls the original on history with the same arguments and returns its result', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  const seen = [];
  win.history.pushState = function (...args) { seen.push([this === win.history, args]); return 'original result'; };
  install(win);
  const state = { deep: { n: 1 } };
  assert.equal(win.history.pushState(state, 'title', '/x', 'extra'), 'original result');
  assert.equal(seen.length, 1);
  assert.equal(seen[0][0], true);
  assert.equal(seen[0][1][0], state, 'state object passed by identity, not copied');
  assert.deepEqual(seen[0][1].slice(1), ['title', '/x', 'extra']);
});

test('R48 an original that throws propagates its error and sends no notice', () => {
  const { win, handler, clock } = setup();
  const original = Object.getPrototypeOf(win.history).pushState;
  assert.notEqual(win.history.pushState, original, 'wrapped');
  const win2 = makeWindow({ handler });
  win2.history.replaceState = () => { throw new DOMException('cross-origin URL', 'SecurityError'); };
  install(win2);
  assert.throws(() => win2.history.replaceState(null, '', 'https://evil.example/'), { name: 'SecurityError' });
  win2.clock.tick(0);
  clock.tick(0);
  assert.equal(handler.texts.length, 0);
});

test('R48 the shim never fires a synthetic popstate', () => {
  const { win, clock } = setup();
  let popstates = 0;
  win.addEventListener('popstate', () => { popstates++; });
  win.history.pushState(null, '', '/a');
  win.history.replaceState(null, '', '/b');
  clock.tick(0);
  assert.equal(popstates, 0);
});

test('R50 evaluating the shim twice wraps history once: one notice per pushState, same function object', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  const ctx = evaluateIn(win, shimSource());
  const afterFirst = win.history.pushState;
  const replaceAfterFirst = win.history.replaceState;
  evaluateIn(win, shimSource(), ctx);
  assert.equal(win.history.pushState, afterFirst);
  assert.equal(win.history.replaceState, replaceAfterFirst);
  assert.equal(win.listenerCounts.get('popstate'), 1);
  win.history.pushState(null, '', '/once');
  win.dispatchEvent(new Event('popstate'));
  win.clock.tick(0);
  assert.deepEqual(handler.messages.map((m) => m.options.type), ['pushState', 'popstate']);
});

test('R50 two bridges created with history on the same window still give one notice per change', () => {
  const handler = recordingHandler();
  const win = makeWindow({ handler });
  createWebBridge({ window: win, history: true });
  const afterFirst = win.history.pushState;
  createWebBridge({ window: win, history: true });
  install(win);
  assert.equal(win.history.pushState, afterFirst);
  win.history.pushState(null, '', '/x');
  win.clock.tick(0);
  assert.equal(handler.texts.length, 1);
});

test('R52 channel removed before the deferred notice runs: pushState works, nothing is sent, nothing throws', () => {
  const variants = {
    'handler deleted': (win) => { delete win.webkit.messageHandlers.webbridge; },
    'webkit deleted': (win) => { delete win.webkit; },
    'messageHandlers getter throws': (win) => {
      Object.defineProperty(win.webkit, 'messageHandlers', { get() { throw new TypeError('torn down'); } });
    },
    'postMessage replaced by a non-function': (win) => { win.webkit.messageHandlers.webbridge = { postMessage: null }; },
  };
  for (const [name, tearDown] of Object.entries(variants)) {
    const { win, handler, clock, bridge } = setup({ href: 'https://app.example/' });
    assert.equal(win.history.pushState({ p: 1 }, '', '/after'), undefined, name);
    assert.equal(win.location.href, 'https://app.example/after', name);
    tearDown(win);
    assert.doesNotThrow(() => clock.tick(0), name);
    assert.equal(handler.texts.length, 0, name);
    assert.deepEqual(win.console.errors, [], name);
    assert.doesNotThrow(() => finishLoading(win), name);
    assert.equal(handler.texts.length, 0, name);
    assert.equal(bridge._sizes().queued, 0, name);
  }
});

test('R52 a channel whose post throws at notice time: nothing escapes the timer', () => {
  const handler = { texts: [], postMessage() { throw new TypeError('channel closed'); } };
  const win = makeWindow({ handler });
  install(win);
  win.history.pushState(null, '', '/x');
  assert.doesNotThrow(() => win.clock.tick(0));
  assert.deepEqual(win.console.errors, []);
});

test('history notices made before the channel is ready are queued like other fire-and-forget calls', () => {
  const win = makeWindow();
  install(win);
  win.history.pushState(null, '', '/early');
  win.clock.tick(0);
  const handler = recordingHandler();
  win.webkit = { messageHandlers: { webbridge: handler } };
  win.dispatchEvent(new Event('DOMContentLoaded'));
  assert.deepEqual(handler.messages.map((m) => m.options), [{ type: 'pushState', url: 'https://app.example/early' }]);
});

test('history option false, or a window without history, installs no wrapper and no popstate listener', () => {
  const win = makeWindow({ handler: recordingHandler() });
  const original = win.history.pushState;
  install(win, { history: false });
  assert.equal(win.history.pushState, original);
  assert.equal(win.listenerCounts.get('popstate'), undefined);
  const bare = makeWindow({ history: false });
  assert.doesNotThrow(() => install(bare));
  assert.equal(bare.listenerCounts.get('popstate'), undefined);
});
