'use strict';
// Mock mode in a real browser engine: Debian's Chromium, headless. A page loads js/webbridge.js as a
// classic <script>, exercises WebBridge.mock and writes what it saw into the DOM; the test reads it
// with --dump-dom and checks it here. Skipped, with a message, where chromium is not installed
// (scripts/setup installs it).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { SHIM_PATH } = require('../testing/fakes.js');

const CHROMIUM = ['chromium', 'chromium-browser'].find((name) => spawnSync(name, ['--version'], { encoding: 'utf8' }).status === 0);
const SKIP = !CHROMIUM && 'chromium is not installed (apt-get install chromium, or run scripts/setup): the browser mock-mode test did not run';

/** The page's own script: ES2017, runs after the shim; writes its results as JSON into #out. */
const PAGE_SCRIPT = String.raw`
(async function () {
  var out = {};
  function settle(p) { return p.then(function (data) { return { ok: true, data: data }; }, function (e) { return { ok: false, code: e.code, message: e.message, details: e.details, isError: e instanceof WebBridge.WebBridgeError }; }); }
  try {
    out.hasWebkit = typeof window.webkit !== 'undefined';
    out.before = { tasks: WebBridge.tasks(), supports: WebBridge.supports('Cart.add') };
    var signals = {};
    var notified = [];
    out.engaged = WebBridge.mock({
      'Cart.add': function (o, ctx) { ctx.progress({ pct: 50 }); return { count: o.qty * 2, at: new Date(0) }; },
      Fails: function () { throw { code: 'out_of_stock', message: 'Sold out', details: { sku: 'A-1' } }; },
      Typed: async function () { throw new WebBridge.WebBridgeError('forbidden', 'No', null); },
      Slow: function (o, ctx) { signals.slow = ctx.signal; return new Promise(function () {}); },
      Wait: function (o, ctx) { signals.wait = ctx.signal; return new Promise(function () {}); },
      Track: function (o) { notified.push(o); return 'ignored'; }
    });
    out.tasks = WebBridge.tasks();
    out.supports = [WebBridge.supports('Cart.add'), WebBridge.supports('Alert')];
    var progress = [];
    out.ok = await settle(WebBridge.call('Cart.add', { qty: 2 }, { onProgress: function (d) { progress.push(d); } }));
    out.progress = progress;
    out.fails = await settle(WebBridge.call('Fails'));
    out.typed = await settle(WebBridge.call('Typed'));
    out.unknown = await settle(WebBridge.call('geo.lookup', {}));
    out.timeout = await settle(WebBridge.call('Slow', null, { timeout: 100 }));
    out.slowAborted = signals.slow.aborted;
    var controller = new AbortController();
    var waiting = settle(WebBridge.call('Wait', null, { signal: controller.signal }));
    await new Promise(function (r) { setTimeout(r, 10); });
    controller.abort();
    out.cancelled = await waiting;
    out.waitAborted = signals.wait.aborted;
    out.notify = WebBridge.notify('Track', { event: 'open' });
    await new Promise(function (r) { setTimeout(r, 10); });
    out.notified = notified;
    // The page replaces globals after the shim installed: mock mode keeps working.
    JSON.parse = function () { throw new Error('hostile'); };
    Promise.prototype.then = function () { throw new Error('hostile'); };
    Map.prototype.get = function () { throw new Error('hostile'); };
    var hostile = await new Promise(function (resolve) { WebBridge.call('Cart.add', { qty: 5 }, resolve); });
    out.hostile = hostile;
    out.pending = WebBridge.pendingCount();
  } catch (e) {
    out.error = String(e && e.stack || e);
  }
  document.getElementById('out').textContent = JSON.stringify(out);
})();
`;

/** A page where the app's native handler exists (defined before the shim, as WebKit does). */
const NATIVE_SCRIPT = String.raw`
(function () {
  var out = {};
  out.engaged = WebBridge.mock({ 'Cart.add': function () { out.mockRan = true; return 1; } });
  WebBridge.call('Cart.add', { qty: 1 }, function () {});
  out.posted = window.posted.map(function (t) { return JSON.parse(t).task; });
  out.tasks = WebBridge.tasks();
  document.getElementById('out').textContent = JSON.stringify(out);
})();
`;

function runPage(dir, name, headScript, pageScript) {
  const page = path.join(dir, name);
  fs.writeFileSync(page, '<!doctype html><meta charset="utf-8"><title>mock</title>' + headScript +
    '<script src="webbridge.js"></script><pre id="out">not run</pre><script>' + pageScript + '</script>');
  const r = spawnSync(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--user-data-dir=' + path.join(dir, 'profile-' + name),
    '--virtual-time-budget=5000', '--dump-dom', 'file://' + page], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  const match = /<pre id="out">([\s\S]*?)<\/pre>/.exec(r.stdout);
  assert.ok(match, 'no #out in the dumped DOM: ' + r.stdout.slice(0, 500));
  const text = match[1].replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return JSON.parse(text);
}

test('mock mode in headless Chromium: replies, progress, errors, unknown_task, timeout, abort, notify, feature detection, hostile globals', { skip: SKIP, timeout: 120000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webbridge-browser-'));
  try {
    fs.copyFileSync(SHIM_PATH, path.join(dir, 'webbridge.js'));
    const out = runPage(dir, 'mock.html', '', PAGE_SCRIPT);
    assert.equal(out.error, undefined, out.error);
    assert.equal(out.hasWebkit, false, 'a normal browser has no webkit.messageHandlers');
    assert.deepEqual(out.before, { tasks: null, supports: false });
    assert.equal(out.engaged, true);
    assert.deepEqual(out.tasks, { 'Cart.add': null, Fails: null, Slow: null, Track: null, Typed: null, Wait: null });
    assert.deepEqual(out.supports, [true, false]);
    assert.deepEqual(out.ok, { ok: true, data: { count: 4, at: '1970-01-01T00:00:00.000Z' } });
    assert.deepEqual(out.progress, [{ pct: 50 }]);
    assert.deepEqual(out.fails, { ok: false, code: 'out_of_stock', message: 'Sold out', details: { sku: 'A-1' }, isError: true });
    assert.deepEqual(out.typed, { ok: false, code: 'forbidden', message: 'No', details: null, isError: true });
    assert.deepEqual(out.unknown, { ok: false, code: 'unknown_task', message: 'No task named "geo.lookup"', details: { task: 'geo.lookup' }, isError: true });
    assert.equal(out.timeout.code, 'timeout');
    assert.deepEqual(out.timeout.details, { timeout: 100 });
    assert.equal(out.slowAborted, true);
    assert.equal(out.cancelled.code, 'cancelled');
    assert.equal(out.waitAborted, true);
    assert.equal(out.notify, true);
    assert.deepEqual(out.notified, [{ event: 'open' }]);
    assert.deepEqual(out.hostile, { ok: true, data: { count: 10, at: '1970-01-01T00:00:00.000Z' } });
    assert.equal(out.pending, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('mock mode in headless Chromium never engages when the page has a native handler', { skip: SKIP, timeout: 120000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webbridge-browser-'));
  try {
    fs.copyFileSync(SHIM_PATH, path.join(dir, 'webbridge.js'));
    const handler = '<script>window.posted = []; window.webkit = { messageHandlers: { webbridge: { postMessage: function (t) { window.posted.push(t); } } } };</script>';
    const out = runPage(dir, 'native.html', handler, NATIVE_SCRIPT);
    assert.deepEqual(out, { engaged: false, posted: ['Cart.add'], tasks: null });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
