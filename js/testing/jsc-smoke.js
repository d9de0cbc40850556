// Smoke run of the shipped scripts in JavaScriptCore, the engine inside WebKitGTK and Safari.
// Run by js/test/engines.test.js as: jsc js/testing/jsc-smoke.js -- <shim path> <relay path>
// The jsc shell has no DOM, so this file brings a minimal EventTarget/CustomEvent and two "worlds"
// (page and relay) sharing one event target. It prints one JSON line with what happened.
/* global print, load, arguments */
var shimPath = arguments[0];
var relayPath = arguments[1];
var log = [];
var timers = [];

function MiniTarget() { this.listeners = {}; }
MiniTarget.prototype.addEventListener = function (type, fn) {
  var list = (this.listeners[type] = this.listeners[type] || []);
  if (list.indexOf(fn) < 0) { list.push(fn); } // as an EventTarget: the same function once
};
MiniTarget.prototype.removeEventListener = function (type, fn) {
  this.listeners[type] = (this.listeners[type] || []).filter(function (f) { return f !== fn; });
};
MiniTarget.prototype.dispatchEvent = function (event) {
  (this.listeners[event.type] || []).slice().forEach(function (fn) { fn(event); });
  return true;
};
function MiniCustomEvent(type, init) { this.type = type; this.detail = init ? init.detail : null; }
function MiniAbortController() {
  var signal = new MiniTarget();
  signal.aborted = false;
  this.signal = signal;
  this.abort = function () { signal.aborted = true; signal.dispatchEvent({ type: 'abort' }); };
}

var dom = new MiniTarget();
function makeWorld() {
  var w = {
    addEventListener: function (t, f) { dom.addEventListener(t, f); },
    removeEventListener: function (t, f) { dom.removeEventListener(t, f); },
    dispatchEvent: function (e) { return dom.dispatchEvent(e); },
    document: { readyState: 'loading' },
    location: { href: 'https://app.example/', origin: 'https://app.example' },
    origin: 'https://app.example',
    CustomEvent: MiniCustomEvent,
    AbortController: MiniAbortController,
    setTimeout: function (fn) { timers.push(fn); return timers.length; },
    clearTimeout: function () {},
    console: { error: function (a, b) { log.push('console.error ' + b); } },
  };
  w.top = w;
  return w;
}

var relayWorld = makeWorld();
relayWorld.webkit = { messageHandlers: { webbridge: { postMessage: function (posted) {
  // The relay posts "main <origin>\n<body>" (short bodies) or [origin, "main" | "sub", body].
  var envelope = posted;
  if (typeof posted === 'string') {
    var lineEnd = posted.indexOf('\n');
    var space = posted.indexOf(' ');
    envelope = [posted.slice(space + 1, lineEnd), posted.slice(0, space), posted.slice(lineEnd + 1)];
  }
  var m = JSON.parse(envelope[2]);
  log.push('native got ' + m.kind + ' ' + m.task + ' mainFrame=' + (envelope[1] === 'main') + ' origin=' + envelope[0]);
  if (m.kind === 'call' && m.id) {
    return Promise.resolve(JSON.stringify({ v: 1, kind: 'reply', id: m.id, ok: true, data: { echo: m.options } }));
  }
  return Promise.resolve(null);
} } } };
var pageWorld = makeWorld();
pageWorld.history = {
  pushState: function (s, t, url) { pageWorld.location.href = 'https://app.example' + url; },
  replaceState: function () {},
};

var window = relayWorld;
load(relayPath);
load(relayPath);
window = pageWorld;
load(shimPath);
load(shimPath);

var bridge = pageWorld.WebBridge;
bridge.on('cart.updated', function (d) { log.push('event ' + JSON.stringify(d)); });
bridge.handle('page.title', function () { return 'Checkout'; });
bridge.call('echo', { text: "it's\n\u2028\"x\"", n: 0, f: false }).then(function (data) {
  log.push('promise ' + JSON.stringify(data));
}, function (err) { log.push('rejected ' + err.code); });
bridge.call('echo', 'plain', function (reply) { log.push('callback ' + JSON.stringify(reply)); });
var controller = new MiniAbortController();
bridge.call('slow', null, { signal: controller.signal }).catch(function (err) {
  log.push('aborted ' + err.code + ' ' + (err instanceof bridge.WebBridgeError) + ' ' + (err instanceof Error));
});
controller.abort();
bridge._receive({ v: 1, kind: 'event', name: 'cart.updated', data: { count: 3 } });
bridge._receive('{"v":1,"kind":"call","id":"n-1","task":"page.title","options":null}');
bridge._receive('{');
pageWorld.history.pushState(null, '', '/orders/7');
timers.splice(0).forEach(function (fn) { fn(); });

Promise.resolve().then(function () { return null; }).then(function () { return null; }).then(function () {
  return new Promise(function (resolve) { resolve(); });
}).then(function () {
  print(JSON.stringify({ log: log, pending: bridge.pendingCount(), sameObject: pageWorld.WebBridge === bridge }));
});
