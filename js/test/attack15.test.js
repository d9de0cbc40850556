'use strict';
// Attack 15: the shim without a window now settles a call "unavailable" at once when it finds
// no transport and no mocks. A call made before mock() in the same turn (a test's usual set-up
// order, which works in a browser before load) is lost in node; a worker-like global (a window
// object without a document) still waits forever.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim } = require('../testing/fakes.js');

const { createWebBridge } = loadShim();

async function outcome(promise, ms = 1000) {
  return Promise.race([
    promise.then((value) => ({ value }), (error) => ({ error })),
    new Promise((resolve) => setTimeout(() => resolve({ pending: true }), ms)),
  ]);
}

test('A15-4a without a window, a call made before mock() in the same turn is answered by the mocks (as in a browser before load)', async () => {
  const bridge = createWebBridge();
  const early = bridge.call('Cart.add', { qty: 1 });
  bridge.mock({ 'Cart.add': (o) => o.qty + 1 });
  const result = await outcome(early);
  assert.deepEqual(result, { value: 2 }, 'got ' + JSON.stringify(result && (result.error ? { code: result.error.code, message: result.error.message } : result)));
});

test('A15-4b a worker-like global (events, no document) with no channel and no mocks settles a call, never waits forever', async () => {
  const worker = { addEventListener() {}, removeEventListener() {}, dispatchEvent() { return true; }, setTimeout, clearTimeout };
  const bridge = createWebBridge({ window: worker });
  const result = await outcome(bridge.call('Cart.add', { qty: 1 }));
  assert.ok(!result.pending, 'the call is still pending after 1 s');
  assert.equal(result.error && result.error.code, 'unavailable');
});

// PageFunction.assignCookiesOnPage (Sources/BridgeKit/Script/PageScript.swift), read from the
// Swift source and run against a fake document: the script a plan for http://app.example/ makes.
const fs = require('node:fs');
const path = require('node:path');
function assignCookiesOnPageSource() {
  const swift = fs.readFileSync(path.join(__dirname, '..', '..', 'Sources', 'BridgeKit', 'Script', 'PageScript.swift'), 'utf8');
  const start = swift.indexOf('public static let assignCookiesOnPage');
  const body = swift.slice(start, swift.indexOf('\n    )', start));
  return [...body.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse('"' + m[1] + '"')).join('');
}
function runIn(href, plan) {
  const u = new URL(href);
  const assigned = [];
  const location = { protocol: u.protocol, hostname: u.hostname, host: u.host, href };
  const document = { set cookie(v) { assigned.push(v); } };
  const fn = new Function('location', 'document', 'return ' + assignCookiesOnPageSource() + ';')(location, document);
  fn(plan);
  return assigned;
}

test('A15-1 the cookie script planned for the app\'s http start URL assigns its non-Secure cookies when the start URL redirected to https on the same host', () => {
  const plan = { scheme: 'http', host: 'app.example', cookies: ['csrf=tok-A; path=/'] };
  assert.deepEqual(runIn('http://app.example/', plan), ['csrf=tok-A; path=/'], 'the planned page itself gets them');
  assert.deepEqual(runIn('https://app.example/', plan), ['csrf=tok-A; path=/'],
    'http://app.example/ → 301 https://app.example/: the app\'s own page, and the cookies are not Secure');
});
