'use strict';
// Kind of fault: a call that never settles because the page was frozen in the back-forward cache
// while native answered `navigated` to nobody.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createWebBridge } = require('../webbridge.js');

function fakeWindow() {
  const target = new EventTarget();
  return {
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatchEvent: target.dispatchEvent.bind(target),
    document: { readyState: 'complete' },
    location: { href: 'https://app.example/' },
  };
}

function pageshow(persisted) {
  const event = new Event('pageshow');
  Object.defineProperty(event, 'persisted', { value: persisted });
  return event;
}

test('a page restored from the back-forward cache settles its pending calls with navigated', async () => {
  const win = fakeWindow();
  const posted = [];
  const bridge = createWebBridge({ window: win, transport: { post(text) { posted.push(JSON.parse(text)); } }, history: false });
  const call = bridge.call('slow', {});
  assert.equal(bridge.pendingCount(), 1);
  win.dispatchEvent(pageshow(false));
  assert.equal(bridge.pendingCount(), 1, 'an ordinary pageshow changes nothing');
  win.dispatchEvent(pageshow(true));
  await assert.rejects(call, (error) => error.code === 'navigated');
  assert.equal(bridge.pendingCount(), 0);
  bridge._receive({ v: 1, kind: 'reply', id: posted[0].id, ok: true, data: 1 });
  assert.equal(bridge.pendingCount(), 0, 'a late reply for the old call is ignored');
});
