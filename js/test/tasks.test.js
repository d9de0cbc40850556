'use strict';
// Feature detection: WebBridge.supports(name, minimumVersion?) and WebBridge.tasks(), from the
// `tasks` message the host injects at document start (after the shim) and sends when tasks change.
const test = require('node:test');
const assert = require('node:assert/strict');
const vm = require('node:vm');
const { loadShim, makeWindow, recordingTransport, recordingHandler, shimSource, evaluateIn } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();
const tasksMessage = (tasks, revision) => (revision === undefined ? { v: 1, kind: 'tasks', tasks } : { v: 1, kind: 'tasks', revision, tasks });

test('before the host sent a list: tasks() is null and supports() is false', () => {
  const bridge = createWebBridge({ transport: recordingTransport() });
  assert.equal(bridge.tasks(), null);
  assert.equal(bridge.supports('Alert'), false);
});

test('a tasks message sets the list: supports() by name, tasks() as a sorted copy the page cannot change', () => {
  const bridge = createWebBridge({ transport: recordingTransport() });
  bridge._receive(tasksMessage({ Echo: null, Alert: '1', 'Cart.add': '2.1' }, 1));
  assert.equal(bridge.supports('Alert'), true);
  assert.equal(bridge.supports('Echo'), true);
  assert.equal(bridge.supports('alert'), false, 'names are exact');
  assert.equal(bridge.supports('toString'), false, 'inherited names are not tasks');
  assert.equal(bridge.supports(undefined), false);
  const list = bridge.tasks();
  assert.deepEqual(Object.keys(list), ['Alert', 'Cart.add', 'Echo']);
  assert.deepEqual(list, { Alert: '1', 'Cart.add': '2.1', Echo: null });
  list.Fake = '9';
  delete list.Alert;
  assert.equal(bridge.supports('Fake'), false);
  assert.equal(bridge.supports('Alert'), true);
  assert.notEqual(bridge.tasks(), bridge.tasks(), 'a fresh object each time');
});

test('supports(name, minimumVersion) compares dotted versions numerically; a task without a version meets none', () => {
  const bridge = createWebBridge({ transport: recordingTransport() });
  bridge._receive(tasksMessage({ A: '1.10', B: '2', C: null, D: 'beta' }));
  assert.equal(bridge.supports('A', '1.9'), true, '1.10 is after 1.9');
  assert.equal(bridge.supports('A', '1.10'), true);
  assert.equal(bridge.supports('A', '1.10.1'), false);
  assert.equal(bridge.supports('A', '2'), false);
  assert.equal(bridge.supports('B', 2), true, 'a number is read as its text');
  assert.equal(bridge.supports('B', '10'), false, '2 is before 10 (not compared as text)');
  assert.equal(bridge.supports('B', '2.0'), true);
  assert.equal(bridge.supports('C', '1'), false);
  assert.equal(bridge.supports('C'), true);
  assert.equal(bridge.supports('D', 'beta'), true);
  assert.equal(bridge.supports('D', 'gamma'), false);
});

test('a later list replaces the earlier one (registered and removed tasks); a stale revision is ignored', () => {
  const bridge = createWebBridge({ transport: recordingTransport() });
  bridge._receive(tasksMessage({ Alert: '1' }, 3));
  bridge._receive(JSON.stringify(tasksMessage({ Alert: '1', Scan: null }, 4)));
  assert.deepEqual(bridge.tasks(), { Alert: '1', Scan: null });
  bridge._receive(tasksMessage({ Alert: '1' }, 2));
  assert.deepEqual(bridge.tasks(), { Alert: '1', Scan: null }, 'revision 2 arrived after 4');
  bridge._receive(tasksMessage({ Scan: null }, 5));
  assert.equal(bridge.supports('Alert'), false, 'a removed task is no longer supported');
  bridge._receive(tasksMessage({}));
  assert.deepEqual(bridge.tasks(), {}, 'a message without revision always applies');
});

test('malformed tasks messages change nothing; odd versions read as null; __proto__ is just a name', () => {
  const bridge = createWebBridge({ transport: recordingTransport() });
  bridge._receive(tasksMessage({ Alert: '1' }));
  for (const bad of [{ v: 1, kind: 'tasks' }, tasksMessage(['Alert']), tasksMessage('Alert'), tasksMessage(null), { v: 2, kind: 'tasks', tasks: {} }]) {
    assert.doesNotThrow(() => bridge._receive(bad));
  }
  assert.deepEqual(bridge.tasks(), { Alert: '1' });
  bridge._receive('{"v":1,"kind":"tasks","tasks":{"__proto__":"1","X":2,"Y":"","Z":{"a":1}}}');
  const list = bridge.tasks();
  assert.equal(Object.getPrototypeOf(list), Object.prototype);
  assert.deepEqual(Object.keys(list), ['X', 'Y', 'Z', '__proto__']);
  assert.equal(list.X, null);
  assert.equal(bridge.supports('__proto__', '1'), true);
});

test('document start: the host\'s list, injected after the shim, is there synchronously for the page\'s first script', () => {
  const win = makeWindow({ handler: recordingHandler() });
  const ctx = evaluateIn(win, shimSource());
  // What the host injects (PageScript.build(calling: .receive, ...)), then the page's own first script.
  evaluateIn(win, "(function(m){var b=window.WebBridge;if(b&&typeof b._receive==='function'){b._receive(m);}})(" +
    JSON.stringify(tasksMessage({ Alert: '1', Echo: null }, 0)) + ');void 0', ctx);
  const seen = vm.runInContext("[WebBridge.supports('Alert'), WebBridge.supports('Alert', '2'), WebBridge.supports('Scan'), JSON.stringify(WebBridge.tasks())]", ctx);
  assert.deepEqual(Array.from(seen), [true, false, false, '{"Alert":"1","Echo":null}']);
});

test('in mock mode supports() and tasks() reflect the mocks; with a native channel they reflect native\'s list', () => {
  const browser = createWebBridge({ window: makeWindow() });
  browser.mock({ 'Cart.add': () => 1, Scan: () => 2 });
  assert.deepEqual(browser.tasks(), { 'Cart.add': null, Scan: null });
  assert.equal(browser.supports('Scan'), true);
  assert.equal(browser.supports('Alert'), false);
  browser.mock({ Scan: null });
  assert.deepEqual(browser.tasks(), { 'Cart.add': null });
  const app = createWebBridge({ window: makeWindow({ handler: recordingHandler() }) });
  app._receive(tasksMessage({ Alert: '1' }));
  assert.equal(app.mock({ 'Cart.add': () => 1 }), false);
  assert.deepEqual(app.tasks(), { Alert: '1' });
  assert.equal(app.supports('Cart.add'), false);
});
