'use strict';
// Test doubles for js/test: a manual clock, a fake browser window (EventTarget based, no jsdom),
// a fake history/location pair, recording transports and a two-world (page + relay) fake.
// Kept outside js/test/ because `node --test js/test/` runs every .js file inside it.

const fs = require('node:fs');
const assert = require('node:assert/strict');
const path = require('node:path');
const vm = require('node:vm');

const SHIM_PATH = path.join(__dirname, '..', 'webbridge.js');
const RELAY_PATH = path.join(__dirname, '..', 'webbridge-relay.js');
const FIXTURE_DIR = path.join(__dirname, '..', '..', 'Tests', 'Fixtures', 'protocol');

/** Timers that run only when the test says so: `tick(ms)` advances time and runs what is due. */
class FakeClock {
  constructor() { this.now = 0; this.seq = 0; this.timers = new Map(); }
  setTimeout(fn, ms) {
    const id = ++this.seq;
    this.timers.set(id, { fn, due: this.now + Math.max(0, Number(ms) || 0), seq: id });
    return id;
  }
  clearTimeout(id) { this.timers.delete(id); }
  get size() { return this.timers.size; }
  /** Advances time by `ms`, running due timers in (due time, creation) order, including new ones. */
  tick(ms = 0) {
    const until = this.now + ms;
    for (;;) {
      let due = Infinity;
      for (const t of this.timers.values()) { if (t.due < due) { due = t.due; } }
      if (due > until) { break; }
      this.now = Math.max(this.now, due);
      const batch = [...this.timers.values()].filter((t) => t.due === due);
      for (const t of batch) {
        if (this.timers.delete(t.seq)) { t.fn(); }
      }
    }
    this.now = until;
  }
}

class FakeLocation {
  constructor(href) { this.href = href; }
  get origin() { return new URL(this.href).origin; }
}

/** History whose methods live on the prototype, like the browser's History.prototype. */
class FakeHistory {
  constructor(win) { this.win = win; this.entries = [win.location.href]; this.index = 0; this.calls = []; }
  pushState(state, title, url) {
    this.calls.push(['pushState', state, title, url]);
    if (url !== undefined && url !== null) { this.win.location.href = new URL(String(url), this.win.location.href).href; }
    this.entries.splice(this.index + 1, Infinity, this.win.location.href);
    this.index += 1;
    return undefined;
  }
  replaceState(state, title, url) {
    this.calls.push(['replaceState', state, title, url]);
    if (url !== undefined && url !== null) { this.win.location.href = new URL(String(url), this.win.location.href).href; }
    this.entries[this.index] = this.win.location.href;
    return undefined;
  }
  /** What the browser does on Back: change the URL, then fire popstate. */
  back() {
    if (this.index === 0) { return; }
    this.index -= 1;
    this.win.location.href = this.entries[this.index];
    this.win.dispatchEvent(new Event('popstate'));
  }
}

/** Console that records instead of printing. */
function recordingConsole() {
  const c = { errors: [], warnings: [] };
  c.error = (...args) => { c.errors.push(args); };
  c.warn = (...args) => { c.warnings.push(args); };
  c.log = () => {};
  return c;
}

/**
 * A browser's CustomEvent: Node's, plus the legacy `initCustomEvent(type, bubbles, cancelable,
 * detail)` that browsers (WebKit included) have and Node lacks. As in the DOM standard it does
 * nothing while the event is being dispatched; this fake keeps the type (the shim and relay never
 * change it) and throws when asked to change it.
 */
class BrowserCustomEvent extends CustomEvent {
  #detail;
  constructor(type, init) {
    super(type, init);
    this.#detail = init && init.detail !== undefined ? init.detail : null;
  }
  get detail() { return this.#detail; }
  initCustomEvent(type, bubbles, cancelable, detail) {
    if (this.eventPhase !== 0) { return; }
    if (type !== this.type) { throw new Error('BrowserCustomEvent: the fake cannot change an event type'); }
    this.#detail = detail === undefined ? null : detail;
  }
}

/**
 * A fake window. `listenerCounts` counts live listeners per event type, so tests can prove that a
 * second install adds none. Pass `target` to share one EventTarget between two worlds.
 */
const hasOwnProperty = Object.prototype.hasOwnProperty;

function makeWindow(options = {}) {
  const target = options.target || new EventTarget();
  const clock = options.clock || new FakeClock();
  const counts = new Map();
  const live = new Map();
  const win = {
    document: { readyState: options.readyState || 'loading' },
    location: new FakeLocation(options.href || 'https://app.example/'),
    // A browser's CustomEvent (with initCustomEvent) unless `options.CustomEvent` gives another.
    CustomEvent: options.CustomEvent || BrowserCustomEvent, Event, AbortController, Uint32Array,
    crypto: globalThis.crypto,
    console: recordingConsole(),
    setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
    clearTimeout: (id) => clock.clearTimeout(id),
    // Counts live listeners as an EventTarget keeps them: the same function for the same type once.
    addEventListener(type, fn, opts) {
      const set = live.get(type) || new Set();
      live.set(type, set);
      if (!set.has(fn)) { set.add(fn); counts.set(type, (counts.get(type) || 0) + 1); }
      target.addEventListener(type, fn, opts);
    },
    removeEventListener(type, fn, opts) {
      const set = live.get(type);
      if (set && set.delete(fn)) { counts.set(type, (counts.get(type) || 0) - 1); }
      target.removeEventListener(type, fn, opts);
    },
    dispatchEvent(event) { return target.dispatchEvent(event); },
  };
  // The document's security origin (`self.origin`): the URL's origin unless `options.origin` says
  // otherwise ("null" for an opaque origin, the creator's for srcdoc/about:blank, undefined for none).
  if (hasOwnProperty.call(options, 'origin')) {
    win.origin = options.origin;
  } else {
    Object.defineProperty(win, 'origin', { get() { return win.location.origin; }, enumerable: true, configurable: true });
  }
  win.window = win;
  win.self = win;
  win.top = win;
  if (options.history !== false) { win.history = new FakeHistory(win); }
  if (options.handler) { win.webkit = { messageHandlers: { webbridge: options.handler } }; }
  Object.defineProperty(win, 'clock', { value: clock, enumerable: false });
  Object.defineProperty(win, 'listenerCounts', { value: counts, enumerable: false });
  Object.defineProperty(win, 'eventTarget', { value: target, enumerable: false });
  return win;
}

/** Fires DOMContentLoaded, then sets readyState "complete" and fires load, as a browser does. */
function finishLoading(win) {
  win.document.readyState = 'interactive';
  win.dispatchEvent(new Event('DOMContentLoaded'));
  win.document.readyState = 'complete';
  win.dispatchEvent(new Event('load'));
}

/** A `webkit.messageHandlers.webbridge` stand-in that records what it was posted. */
function recordingHandler(reply) {
  const h = { texts: [], get messages() { return h.texts.map((t) => (typeof t === 'string' ? JSON.parse(t) : t)); } };
  h.postMessage = (text) => { h.texts.push(text); return reply ? reply(text) : undefined; };
  return h;
}

/**
 * What the relay posted, as the array [origin, frame, body]: the one-string form
 * "frame origin\nbody" (bodies under 65,536 UTF-16 units) is split, the array form returned as is.
 */
function relayEnvelope(posted) {
  if (typeof posted !== 'string') { return posted; }
  const lineEnd = posted.indexOf('\n');
  const space = posted.indexOf(' ');
  assert.ok(lineEnd > 0 && space > 0 && space < lineEnd, 'a relay header line: ' + JSON.stringify(posted.slice(0, 80)));
  return [posted.slice(space + 1, lineEnd), posted.slice(0, space), posted.slice(lineEnd + 1)];
}

/**
 * The relay world's native handler: records what the relay posts (`texts`, as posted; `messages`,
 * each as [origin, frame, body], see `relayEnvelope`); `reply(envelope)` gives its Promise.
 */
function relayHandler(reply) {
  const h = { texts: [], get messages() { return h.texts.map(relayEnvelope); } };
  h.postMessage = (posted) => { h.texts.push(posted); return reply ? reply(relayEnvelope(posted)) : undefined; };
  return h;
}

/** An injected transport {post(text)} that records the parsed messages. */
function recordingTransport(reply) {
  const t = { texts: [], get messages() { return t.texts.map((x) => JSON.parse(x)); } };
  t.post = (text) => { t.texts.push(text); return reply ? reply(text) : undefined; };
  return t;
}

/**
 * Two script worlds over one DOM window: the page world (shim, no native handler) and the relay
 * world (relay script and the native handler). They share only the EventTarget, as in WebKit.
 */
function makeWorlds(options = {}) {
  const target = new EventTarget();
  const clock = new FakeClock();
  const events = options.CustomEvent ? { CustomEvent: options.CustomEvent } : {};
  const page = makeWindow({ target, clock, href: options.href, ...events });
  const handler = options.handler || relayHandler();
  const origin = hasOwnProperty.call(options, 'origin') ? { origin: options.origin } : {};
  const relay = makeWindow({ target, clock, href: options.href, history: false, handler, ...origin, ...events });
  if (options.subframe) { relay.top = {}; }
  return { page, relay, handler, clock, target };
}

function loadShim() { return require(SHIM_PATH); }
function loadRelay() { return require(RELAY_PATH); }
function shimSource() { return fs.readFileSync(SHIM_PATH, 'utf8'); }
function relaySource() { return fs.readFileSync(RELAY_PATH, 'utf8'); }

/** Evaluates `source` as a classic script in a fresh vm context whose global is `win`. */
function evaluateIn(win, source, context) {
  const ctx = context || vm.createContext(win);
  vm.runInContext(source, ctx);
  return ctx;
}

/** Lets queued promise reactions run (several rounds, for chained thens). */
async function settleMicrotasks(rounds = 5) {
  for (let i = 0; i < rounds; i++) { await Promise.resolve(); }
}

function readFixtures() {
  return fs.readdirSync(FIXTURE_DIR).filter((f) => f.endsWith('.json')).sort().map((file) => ({
    file, ...JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, file), 'utf8')),
  }));
}

module.exports = {
  BrowserCustomEvent, FakeClock, FakeHistory, FakeLocation, makeWindow, makeWorlds, finishLoading, recordingHandler, relayHandler, relayEnvelope,
  recordingTransport, recordingConsole, loadShim, loadRelay, shimSource, relaySource, evaluateIn,
  settleMicrotasks, readFixtures, SHIM_PATH, RELAY_PATH, FIXTURE_DIR,
};
