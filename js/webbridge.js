/*
 * BridgeKit WebBridge: the page-side shim of the BridgeKit wire protocol v1 (docs/protocol.md).
 * One hand-written ES2017 file with no build step. As a classic script it installs `window.WebBridge`;
 * from require/import it exports `createWebBridge`, `install`, `WebBridgeError` and `version`.
 * Without a native channel (a normal browser), `WebBridge.mock({...})` answers calls with page functions.
 * Data never becomes code here: no eval, no Function constructor, no template literals.
 */
(function (factory) {
  'use strict';
  var api = factory();
  if (typeof module === 'object' && module && module.exports) {
    module.exports.createWebBridge = api.createWebBridge;
    module.exports.install = api.install;
    module.exports.WebBridgeError = api.WebBridgeError;
    module.exports.version = api.version;
  }
  var root = typeof window !== 'undefined' ? window : undefined;
  if (api.isWindowLike(root)) {
    api.install(root);
  }
})(function () {
  'use strict';

  var VERSION = '1';
  /** The message of a call that found no native channel: in an app the host installs one before
   *  any page script; in a normal browser, mocks answer. */
  var NO_CHANNEL = 'No native channel is available (in a normal browser, answer calls with WebBridge.mock)';
  var MAX_QUEUE = 1000;
  var MAX_TIMER_MS = 2147483647;
  var HISTORY_MARK = '__webbridgeHistoryWrapper';

  // The intrinsics the shim uses, captured when it is evaluated (at document start, before any of
  // the page's own scripts). A page that later replaces `Promise`, `JSON`, `Map` or its methods,
  // Array methods, `Function.prototype.call` and the like changes nothing here: methods are called
  // through `uncurry`, a bound function that looks nothing up when it runs.
  var apply = Reflect.apply;
  var uncurry = Function.prototype.bind.bind(Function.prototype.call);
  var P = Promise;
  var promiseThen = uncurry(P.prototype.then);
  var promiseResolve = P.resolve;
  var speciesKey = typeof Symbol === 'function' ? Symbol.species : undefined;
  var stringify = JSON.stringify;
  var parseJSON = JSON.parse;
  var M = Map;
  var mapGet = uncurry(M.prototype.get);
  var mapSet = uncurry(M.prototype.set);
  var mapHas = uncurry(M.prototype.has);
  var mapDelete = uncurry(M.prototype.delete);
  var mapForEach = uncurry(M.prototype.forEach);
  var mapSize = uncurry(Object.getOwnPropertyDescriptor(M.prototype, 'size').get);
  var isArray = Array.isArray;
  var arrayPush = uncurry(Array.prototype.push);
  var arrayShift = uncurry(Array.prototype.shift);
  var arrayIndexOf = uncurry(Array.prototype.indexOf);
  var arraySplice = uncurry(Array.prototype.splice);
  var arraySlice = uncurry(Array.prototype.slice);
  var arrayFilter = uncurry(Array.prototype.filter);
  var arrayConcat = uncurry(Array.prototype.concat);
  var arrayForEach = uncurry(Array.prototype.forEach);
  var defineProperty = Object.defineProperty;
  var objectKeys = Object.keys;
  var objectCreate = Object.create;
  var arraySort = uncurry(Array.prototype.sort);
  var stringSplit = uncurry(String.prototype.split);
  var freeze = Object.freeze;
  var hasOwn = uncurry(Object.prototype.hasOwnProperty);
  var TypeErrorCtor = TypeError;
  var ErrorCtor = Error;
  var mathMin = Math.min;
  var mathFloor = Math.floor;
  var mathPow = Math.pow;
  var mathRandom = Math.random;
  var dateNow = Date.now;
  var Uint32ArrayCtor = typeof Uint32Array === 'function' ? Uint32Array : null;
  var hostSetTimeout = typeof setTimeout === 'function' ? setTimeout : null;
  var hostClearTimeout = typeof clearTimeout === 'function' ? clearTimeout : null;
  var hostCustomEvent = typeof CustomEvent === 'function' ? CustomEvent : null;
  var hostAbortController = typeof AbortController === 'function' ? AbortController : null;
  // Binary values (issue 26; docs/protocol.md, "Binary values").
  var BINARY_KEY = '$bridgeBinary';
  var BINARY_URL = 'webbridge-binary://transfer/';
  var BINARY_ANNOUNCEMENT = 'webbridge.binary';
  var MAX_ANNOUNCED = 4096;
  /**
   * The most cancels of native calls not seen yet, and ids of native calls answered, that the page
   * remembers (the oldest are forgotten first).
   */
  var MAX_EARLY_CANCELS = 256;
  var MAX_BINARY_DEPTH = 64;
  // A larger binary value uploads in parts, one request after the other, so the app's process
  // holds one part at a time. Their size is the app's (BinaryLimits.partBytes), told in every
  // upload answer ({"code": "ok", "partBytes": n}); until the page has one, parts are this size
  // (BinaryLimits.minimumPartBytes, which native always accepts).
  var FIRST_PART_BYTES = 65536;
  // A request native did not let wait for its claim (`no_room`: native had not admitted the call
  // it belongs to yet, or other frames' requests filled the waits) is sent again up to this many
  // times, the first after NO_ROOM_FIRST_MS, each wait twice the one before and at most
  // NO_ROOM_MAX_MS (about 4 s in all): the wait for native to admit the call.
  var NO_ROOM_RETRIES = 10;
  var NO_ROOM_FIRST_MS = 10;
  var NO_ROOM_MAX_MS = 1000;
  var objectToString = uncurry(Object.prototype.toString);
  var isArrayBufferView = typeof ArrayBuffer === 'function' ? ArrayBuffer.isView : function () { return false; };
  var Uint8ArrayCtor = typeof Uint8Array === 'function' ? Uint8Array : null;
  var uint8Set = Uint8ArrayCtor ? uncurry(Uint8ArrayCtor.prototype.set) : null;
  var hostFetch = typeof fetch === 'function' ? fetch : null;
  var hostReadableStream = typeof ReadableStream === 'function' ? ReadableStream : null;
  // A mock's bytes read as a stream (call setting `binary: "stream"`) come in chunks of this size.
  var MOCK_CHUNK_BYTES = 65536;
  // The platform's own accessors and methods for what the byte transport reads (fetch's responses,
  // their body streams and readers, Blobs, typed arrays' length, crypto's random bytes), captured
  // like the intrinsics above: a page that later replaces `Response.prototype.json`,
  // `ReadableStreamDefaultReader.prototype.read`, `Blob.prototype.slice` or the like can neither
  // strand a binary transfer nor feed it other bytes. They are used on the platform's own objects
  // only (``isPlatform``); a stand-in of another kind (a test double) is read with its own members.
  function ownGetter(proto, key) {
    try {
      var d = proto ? Object.getOwnPropertyDescriptor(proto, key) : null;
      return d && typeof d.get === 'function' ? d.get : null;
    } catch (e) { return null; }
  }
  function ownMethod(proto, key) {
    try { return proto && typeof proto[key] === 'function' ? proto[key] : null; } catch (e) { return null; }
  }
  var responseProto = typeof Response === 'function' ? Response.prototype : null;
  var streamProto = typeof ReadableStream === 'function' ? ReadableStream.prototype : null;
  var readerProto = typeof ReadableStreamDefaultReader === 'function' ? ReadableStreamDefaultReader.prototype : null;
  var blobProto = typeof Blob === 'function' ? Blob.prototype : null;
  var platform = {
    responseStatus: ownGetter(responseProto, 'status'),
    responseOk: ownGetter(responseProto, 'ok'),
    responseBody: ownGetter(responseProto, 'body'),
    responseJson: ownMethod(responseProto, 'json'),
    responseArrayBuffer: ownMethod(responseProto, 'arrayBuffer'),
    streamLocked: ownGetter(streamProto, 'locked'),
    streamGetReader: ownMethod(streamProto, 'getReader'),
    readerRead: ownMethod(readerProto, 'read'),
    blobSize: ownGetter(blobProto, 'size'),
    blobSlice: ownMethod(blobProto, 'slice'),
    blobArrayBuffer: ownMethod(blobProto, 'arrayBuffer'),
    typedArrayLength: Uint8ArrayCtor ? ownGetter(Object.getPrototypeOf(Uint8ArrayCtor.prototype), 'length') : null,
    typedArrayBuffer: Uint8ArrayCtor ? ownGetter(Object.getPrototypeOf(Uint8ArrayCtor.prototype), 'buffer') : null,
    typedArrayByteOffset: Uint8ArrayCtor ? ownGetter(Object.getPrototypeOf(Uint8ArrayCtor.prototype), 'byteOffset') : null,
    typedArrayByteLength: Uint8ArrayCtor ? ownGetter(Object.getPrototypeOf(Uint8ArrayCtor.prototype), 'byteLength') : null,
    dataViewBuffer: typeof DataView === 'function' ? ownGetter(DataView.prototype, 'buffer') : null,
    dataViewByteOffset: typeof DataView === 'function' ? ownGetter(DataView.prototype, 'byteOffset') : null,
    dataViewByteLength: typeof DataView === 'function' ? ownGetter(DataView.prototype, 'byteLength') : null,
    arrayBufferByteLength: typeof ArrayBuffer === 'function' ? ownGetter(ArrayBuffer.prototype, 'byteLength') : null,
    blobType: ownGetter(blobProto, 'type'),
    crypto: typeof crypto === 'object' && crypto ? crypto : null,
    getRandomValues: typeof crypto === 'object' && crypto ? ownMethod(Object.getPrototypeOf(crypto), 'getRandomValues') : null
  };
  /**
   * Whether `object` is the platform's own kind for `brand`, an attribute getter captured above
   * (a Web IDL getter throws for an object of any other kind).
   */
  function isPlatform(brand, object) {
    if (!brand || object === null || typeof object !== 'object') { return false; }
    try { apply(brand, object, []); return true; } catch (e) { return false; }
  }
  /** `member` of `object` read with the platform's `getter` when `object` is the platform's, else its own. */
  function platformGet(getter, object, member) {
    return isPlatform(getter, object) ? apply(getter, object, []) : object[member];
  }
  /** `object[method](...args)` through the platform's `fn` when `object` passes `brand`, else through its own. */
  function platformCall(fn, brand, object, method, args) {
    if (fn && isPlatform(brand, object)) { return apply(fn, object, args); }
    return apply(object[method], object, args);
  }
  function responseStatus(r) { return platformGet(platform.responseStatus, r, 'status'); }
  function responseOk(r) { return platformGet(platform.responseOk, r, 'ok'); }
  function responseJSON(r) { return platformCall(platform.responseJson, platform.responseStatus, r, 'json', []); }
  function responseBytes(r) { return platformCall(platform.responseArrayBuffer, platform.responseStatus, r, 'arrayBuffer', []); }
  /** A reader of `response`'s body, `{reader, platform}` (`platform`: read it with the platform's `read`), or null. */
  function bodyReader(response) {
    var body = platformGet(platform.responseBody, response, 'body');
    if (platform.streamGetReader && isPlatform(platform.streamLocked, body)) {
      return { reader: apply(platform.streamGetReader, body, []), platform: !!platform.readerRead };
    }
    return body && typeof body.getReader === 'function' ? { reader: body.getReader(), platform: false } : null;
  }
  function readStep(body) { return body.platform ? apply(platform.readerRead, body.reader, []) : body.reader.read(); }
  function blobBytes(blob, start, end) {
    var part = start === undefined ? blob : platformCall(platform.blobSlice, platform.blobSize, blob, 'slice', [start, end]);
    return platformCall(platform.blobArrayBuffer, platform.blobSize, part, 'arrayBuffer', []);
  }
  /**
   * What a binary value of `kind` (``binaryKind``) holds, read with the platform's accessors (a
   * page that replaced `Blob.prototype.size` or `%TypedArray%.prototype.buffer` cannot make the
   * shim send other bytes): `{size, type, body}`, `body` a Blob, an ArrayBuffer or a `Uint8Array`
   * over the view's bytes.
   */
  function binaryParts(value, kind) {
    if (kind === 'blob') {
      var type = platformGet(platform.blobType, value, 'type');
      return { size: platformGet(platform.blobSize, value, 'size'), type: typeof type === 'string' ? type : '', body: value };
    }
    if (kind === 'buffer') {
      return { size: platformGet(platform.arrayBufferByteLength, value, 'byteLength'), type: '', body: value };
    }
    var typed = isPlatform(platform.typedArrayByteLength, value);
    var length = typed ? apply(platform.typedArrayByteLength, value, [])
      : platformGet(platform.dataViewByteLength, value, 'byteLength');
    var buffer = typed ? apply(platform.typedArrayBuffer, value, []) : platformGet(platform.dataViewBuffer, value, 'buffer');
    var offset = typed ? apply(platform.typedArrayByteOffset, value, [])
      : platformGet(platform.dataViewByteOffset, value, 'byteOffset');
    return { size: length, type: '', body: new Uint8ArrayCtor(buffer, offset, length) };
  }
  /** The length of a chunk a body reader gave (a `Uint8Array`), read with the platform's getter. */
  function chunkLength(chunk) { return platformGet(platform.typedArrayLength, chunk, 'length'); }

  /** A `constructor` for promises of ours: its species is the captured `Promise`, so `then` never consults the page's `Promise[Symbol.species]` or `Promise.prototype.constructor`. */
  var ownConstructor = {};
  if (speciesKey !== undefined) { defineProperty(ownConstructor, speciesKey, { value: P }); }
  function ownPromise(value) {
    var p = apply(promiseResolve, P, [value]);
    defineProperty(p, 'constructor', { value: ownConstructor });
    return p;
  }
  var resolved = ownPromise(undefined);
  /** Runs `fn` in a microtask (never synchronously), with the captured intrinsics only. */
  function soon(fn) { promiseThen(resolved, fn); }
  /**
   * Runs `onValue` or `onError` once `value` settles. A promise (the engine's reply to a post, a
   * page handler's result) is read with the captured `then`, after giving it the constructor above
   * (nobody else holds the engine's promise); anything else goes through a promise of ours, which
   * adopts a thenable by calling its own `then`. Never throws.
   */
  function whenSettled(value, onValue, onError) {
    var adopted = null;
    if (value !== null && typeof value === 'object') {
      try {
        defineProperty(value, 'constructor', { value: ownConstructor, configurable: true });
        promiseThen(value, null, function () { /* handled below; throws at once for a non-promise */ });
        // As many microtasks as `resolve(value)` takes (a job, then the promise's reaction), so
        // replies keep their order.
        adopted = new P(function (resolve, reject) { soon(function () { promiseThen(value, resolve, reject); }); });
        defineProperty(adopted, 'constructor', { value: ownConstructor });
      } catch (e) { adopted = null; /* not a promise, or a frozen one: adopt it below */ }
    }
    try { promiseThen(adopted || ownPromise(value), onValue, onError); } catch (e) { /* nothing to wait for */ }
  }

  /** The error a promise-form call rejects with: `code` (stable string), `message`, `details` (any JSON or null). */
  class WebBridgeError extends Error {
    constructor(code, message, details) {
      super(typeof message === 'string' ? message : '' + code);
      this.name = 'WebBridgeError';
      this.code = code;
      this.details = details === undefined ? null : details;
    }
  }

  function isObject(x) { return x !== null && typeof x === 'object' && !isArray(x); }
  function orNull(x) { return x === undefined ? null : x; }
  function failure(code, message, details) {
    return { ok: false, error: { code: code, message: message, details: orNull(details) } };
  }
  function isWindowLike(w) {
    return !!w && typeof w.addEventListener === 'function' && typeof w.dispatchEvent === 'function' &&
      w.document !== null && typeof w.document === 'object';
  }
  function isBridge(x) {
    return !!x && typeof x === 'object' && typeof x.call === 'function' && typeof x._receive === 'function';
  }
  /** Error object from a wire `error` field; `fallback` is the code used when the field has none. */
  function wireError(err, fallback) {
    var e = isObject(err) ? err : {};
    var code = typeof e.code === 'string' && e.code ? e.code : fallback;
    var message = typeof e.message === 'string' ? e.message : code;
    return failure(code, message, e.details);
  }
  /** Failure reply for a value a page handler threw or rejected with. Never throws. */
  function thrownFailure(err) {
    try {
      if (typeof err === 'string') { return failure('task_failed', err, null); }
      var code = err && typeof err.code === 'string' && err.code ? err.code : 'task_failed';
      var message = err && typeof err.message === 'string' ? err.message : 'The page handler failed';
      return failure(code, message, err ? err.details : null);
    } catch (e) {
      return failure('task_failed', 'The page handler failed', null);
    }
  }
  function reasonOf(err) {
    try { return err && typeof err.message === 'string' ? err.message : typeof err; } catch (e) { return 'error'; }
  }
  /**
   * The message of a byte request the engine failed without a response (`fetch` rejected): most
   * often a web view that does not serve the byte transport, which only the app can change.
   */
  function transportUnavailable(err) {
    return 'The byte transport is not available (' + reasonOf(err) + '): the app serves binary values ' +
      'only when its web view has a BinaryTransfers (docs/protocol.md, "Binary values")';
  }
  function notJSON(value) {
    var t = typeof value;
    return t === 'function' || t === 'symbol' || t === 'bigint';
  }
  /**
   * The text of a call. Keep the key order `v`, `kind`, `id`, `task`, `options`: native reads a
   * body that starts with `{"v":1,"kind":"call",` in one comparison and then its members in one
   * pass (`CallEnvelopeScan` in Sources/BridgeKit/Router/InboundDecoding.swift, its
   * `shimPrefix`); any other order still works, through the slower general path. Pinned by
   * js/test/call.test.js ("encodeCall key order") and CallEnvelopeScanTests in Swift.
   */
  function encodeCall(id, task, options) {
    if (notJSON(options)) { throw new TypeErrorCtor('options of type ' + typeof options + ' are not JSON'); }
    var message = { v: 1, kind: 'call' };
    if (id !== null) { message.id = id; }
    message.task = task;
    message.options = orNull(options);
    return stringify(message);
  }
  function encodeReply(id, reply) {
    var message = { v: 1, kind: 'reply', id: id, ok: reply.ok };
    if (reply.ok) {
      if (notJSON(reply.data)) { return encodeReply(id, failure('invalid_result', 'The handler result is not JSON', null)); }
      message.data = orNull(reply.data);
      try { return stringify(message); } catch (e) {
        return encodeReply(id, failure('invalid_result', 'The handler result is not JSON', null));
      }
    }
    var error = { code: reply.error.code, message: reply.error.message };
    if (reply.error.details !== null && reply.error.details !== undefined) { error.details = reply.error.details; }
    message.error = error;
    try { return stringify(message); } catch (e) {
      delete error.details;
      return stringify(message);
    }
  }
  /** Compares dotted versions part by part, numerically where both parts are numbers ("1.10" > "1.9"). */
  function compareVersions(a, b) {
    var x = stringSplit(a, '.');
    var y = stringSplit(b, '.');
    for (var i = 0; i < x.length || i < y.length; i++) {
      var p = i < x.length ? x[i] : '0';
      var q = i < y.length ? y[i] : '0';
      var np = +p;
      var nq = +q;
      if (p !== '' && q !== '' && np === np && nq === nq) {
        if (np !== nq) { return np < nq ? -1 : 1; }
      } else if (p !== q) {
        return p < q ? -1 : 1;
      }
    }
    return 0;
  }
  /** A copy of a task list (name -> version or null) as a plain object with sorted keys. */
  function plainTaskList(list) {
    var out = {};
    arrayForEach(arraySort(objectKeys(list)), function (name) {
      defineProperty(out, name, { value: list[name], enumerable: true, writable: true, configurable: true });
    });
    return out;
  }
  function makePrefix(win) {
    try {
      var c = (win && win.crypto) || (typeof crypto !== 'undefined' ? crypto : null);
      if (c && typeof c.getRandomValues === 'function') {
        var words = new Uint32ArrayCtor(2);
        c.getRandomValues(words);
        return words[0].toString(36) + words[1].toString(36);
      }
    } catch (e) { /* fall through to Math.random */ }
    return mathFloor(mathRandom() * 4294967296).toString(36) + dateNow().toString(36);
  }
  function makeController(win) {
    var AC = (win && win.AbortController) || hostAbortController;
    return AC ? new AC() : { signal: { aborted: false }, abort: function () { this.signal.aborted = true; } };
  }

  // ---- binary values: placeholders (issue 26) ----
  /** 'buffer', 'view' or 'blob' for a binary value (checked by its tag, so values of other realms count), else null. */
  function binaryKind(x) {
    if (x === null || typeof x !== 'object') { return null; }
    var tag = objectToString(x);
    if (tag === '[object ArrayBuffer]') { return 'buffer'; }
    if (tag === '[object Blob]' || tag === '[object File]') { return 'blob'; }
    return isArrayBufferView(x) ? 'view' : null;
  }
  /** 32 lower-case hex digits from `crypto.getRandomValues`; throws where there is no secure random source. */
  function makeToken(win) {
    var c = (win && win.crypto) || (typeof crypto !== 'undefined' ? crypto : null);
    var bytes = new Uint8ArrayCtor(16);
    if (platform.getRandomValues && c === platform.crypto) {
      apply(platform.getRandomValues, c, [bytes]);
    } else {
      c.getRandomValues(bytes);
    }
    var digits = '0123456789abcdef';  // read by index: nothing the page can replace
    var hex = '';
    for (var i = 0; i < 16; i++) { hex += digits[bytes[i] >> 4] + digits[bytes[i] & 15]; }
    return hex;
  }
  function setOwn(object, key, value) {
    defineProperty(object, key, { value: value, enumerable: true, writable: true, configurable: true });
  }
  /**
   * `value` with every binary value (ArrayBuffer, typed array, DataView, Blob, File) in plain
   * objects and arrays replaced by a placeholder `{"$bridgeBinary": {token, size, type?}}`; each
   * is pushed to `parts` as {token, body, size, value}. Only the objects on the way to a binary value are
   * copied; the page's own objects are never changed and keep every key, `"$bridgeBinary"` too.
   */
  function extractBinaries(value, parts, win, depth) {
    var kind = binaryKind(value);
    if (kind) {
      var token = makeToken(win);
      var held = binaryParts(value, kind);
      var fields = { token: token, size: held.size };
      if (held.type) { fields.type = held.type; }
      arrayPush(parts, { token: token, body: held.body, size: held.size, value: value });
      var placeholder = {};
      setOwn(placeholder, BINARY_KEY, fields);
      return placeholder;
    }
    if (value === null || typeof value !== 'object' || depth > MAX_BINARY_DEPTH || typeof value.toJSON === 'function') { return value; }
    var copy = null;
    if (isArray(value)) {
      for (var i = 0; i < value.length; i++) {
        var item = extractBinaries(value[i], parts, win, depth + 1);
        if (item !== value[i] && !copy) { copy = arraySlice(value); }
        if (copy) { copy[i] = item; }
      }
      return copy || value;
    }
    var keys = objectKeys(value);
    for (var k = 0; k < keys.length; k++) {
      var member = value[keys[k]];
      var replaced = extractBinaries(member, parts, win, depth + 1);
      if (replaced !== member && !copy) {
        copy = {};
        for (var j = 0; j < keys.length; j++) { setOwn(copy, keys[j], value[keys[j]]); }
      }
      if (copy) { setOwn(copy, keys[k], replaced); }
    }
    return copy || value;
  }
  /**
   * Whether `value` holds a binary value where `extractBinaries` would find one (plain objects and
   * arrays, to a depth of MAX_BINARY_DEPTH, not inside a value with `toJSON`).
   */
  function containsBinary(value, depth) {
    if (binaryKind(value)) { return true; }
    if (value === null || typeof value !== 'object' || depth > MAX_BINARY_DEPTH || typeof value.toJSON === 'function') { return false; }
    var items = isArray(value) ? value : null;
    var keys = items ? null : objectKeys(value);
    var n = items ? items.length : keys.length;
    for (var i = 0; i < n; i++) {
      if (containsBinary(items ? items[i] : value[keys[i]], depth + 1)) { return true; }
    }
    return false;
  }
  /** The token of `x` when it is a placeholder whose token native announced, else null. */
  function announcedToken(x, announced) {
    if (!isObject(x)) { return null; }
    var keys = objectKeys(x);
    if (keys.length !== 1 || keys[0] !== BINARY_KEY) { return null; }
    var fields = x[BINARY_KEY];
    var token = isObject(fields) ? fields.token : null;
    return typeof token === 'string' && mapHas(announced, token) ? token : null;
  }
  /**
   * Collects the announced placeholders in `value` into `found` (token -> size or null) and, when
   * `types` is given, their MIME types into it (token -> type or null).
   */
  function findPlaceholders(value, announced, found, depth, types) {
    if (value === null || typeof value !== 'object' || depth > MAX_BINARY_DEPTH) { return; }
    var token = announcedToken(value, announced);
    if (token !== null) {
      var size = value[BINARY_KEY].size;
      mapSet(found, token, typeof size === 'number' && size >= 0 ? size : null);
      if (types) {
        var type = value[BINARY_KEY].type;
        mapSet(types, token, typeof type === 'string' && type ? type : null);
      }
      return;
    }
    var keys = objectKeys(value);
    for (var i = 0; i < keys.length; i++) { findPlaceholders(value[keys[i]], announced, found, depth + 1, types); }
  }
  /** `value` with each announced placeholder replaced by its bytes from `bytes` (token -> Uint8Array); copies only what changes. */
  function replacePlaceholders(value, announced, bytes, depth) {
    if (value === null || typeof value !== 'object' || depth > MAX_BINARY_DEPTH) { return value; }
    var token = announcedToken(value, announced);
    if (token !== null && mapHas(bytes, token)) { return mapGet(bytes, token); }
    var keys = objectKeys(value);
    var copy = null;
    for (var i = 0; i < keys.length; i++) {
      var member = value[keys[i]];
      var replaced = replacePlaceholders(member, announced, bytes, depth + 1);
      if (replaced !== member && !copy) {
        copy = isArray(value) ? arraySlice(value) : {};
        if (!isArray(value)) { for (var j = 0; j < keys.length; j++) { setOwn(copy, keys[j], value[keys[j]]); } }
      }
      if (copy) { if (isArray(copy)) { copy[keys[i]] = replaced; } else { setOwn(copy, keys[i], replaced); } }
    }
    return copy || value;
  }

  /**
   * Creates a bridge bound to `opts.window` (optional), `opts.transport` (optional {post(text)}),
   * `opts.channel` (handler name, default "webbridge") and `opts.history` (wrap history, default false).
   */
  function createWebBridge(opts) {
    opts = opts || {};
    var win = opts.window || null;
    var transport = opts.transport && typeof opts.transport.post === 'function' ? opts.transport : null;
    var channel = typeof opts.channel === 'string' && opts.channel ? opts.channel : 'webbridge';
    var pending = new M();       // page call id -> entry
    var queue = [];              // {text, entry|null} waiting for a channel, at most MAX_QUEUE
    var listeners = new M();     // event name -> array of functions
    var eventsWaiting = [];      // events not yet handed to listeners, in order (drainEvents)
    var eventsDraining = false;  // drainEvents is handing them on
    var subscriptions = new M(); // event name -> Map(function -> {count}): the unsubscribe functions `on` returned and not yet called
    var handlers = new M();      // task name -> handler for native->page calls
    var nativeCalls = new M();   // native call id -> AbortController
    var earlyCancels = new M();  // native call id -> true: cancelled before the call arrived
    var finishedNativeCalls = new M(); // native call id -> true: answered lately (a cancel for one came late)
    var mocks = null;            // task name -> mock function, once WebBridge.mock engaged mock mode
    var mockCalls = new M();     // page call id -> AbortController of a running mock
    var nativeTasks = null;      // task name -> version or null, from the last `tasks` message
    var tasksRevision = -1;      // revision of that message (a lower one arriving later is stale)
    var prefix = makePrefix(win);
    var counter = 0;
    var relayReady = false;
    var loaded = false;
    // The window's own functions, read now: the page may replace them later.
    var winSetTimeout = win && typeof win.setTimeout === 'function' ? win.setTimeout : null;
    var winClearTimeout = win && typeof win.clearTimeout === 'function' ? win.clearTimeout : null;
    var winCustomEvent = (win && typeof win.CustomEvent === 'function' && win.CustomEvent) || hostCustomEvent;
    var winInitCustomEvent = null;  // its `initCustomEvent`, for the one reused post event (postToRelay)
    try {
      var customEventProto = winCustomEvent && winCustomEvent.prototype;
      if (customEventProto && typeof customEventProto.initCustomEvent === 'function') { winInitCustomEvent = customEventProto.initCustomEvent; }
    } catch (e) { winInitCustomEvent = null; }
    var winDispatchEvent = win && typeof win.dispatchEvent === 'function' ? win.dispatchEvent : null;
    var winAddEventListener = win && typeof win.addEventListener === 'function' ? win.addEventListener : null;
    var winMutationObserver = win && typeof win.MutationObserver === 'function' ? win.MutationObserver : null;
    var controllerWindow = { AbortController: win && win.AbortController };
    var announced = new M();     // download tokens native announced (a reply's or progress's "binary" member, or the webbridge.binary event), until fetched
    var mockOffers = new M();    // mock mode: token -> bytes a mock answered with, until the page reads them
    var mockPageCalls = new M(); // mock mode: mockCallPage id -> {resolve, reject, timer}
    var mockPageCallNumber = 0;
    var partBytes = FIRST_PART_BYTES;  // upload part size: native's, from its last upload answer
    var winFetch = win && typeof win.fetch === 'function' ? win.fetch : hostFetch;
    var winReadableStream = (win && typeof win.ReadableStream === 'function' && win.ReadableStream) || hostReadableStream;

    function report(err) {
      try {
        var c = (win && win.console) || (typeof console !== 'undefined' ? console : null);
        if (c && typeof c.error === 'function') { c.error('WebBridge:', err); }
      } catch (e) { /* nothing left to report to */ }
    }
    // Timers come from the window when it has them (so tests can drive them), else from the host.
    function later(fn, ms) {
      if (winSetTimeout) { return apply(winSetTimeout, win, [fn, ms]); }
      return hostSetTimeout ? hostSetTimeout(fn, ms) : null;
    }
    function cancelLater(t) {
      try {
        if (winClearTimeout) { apply(winClearTimeout, win, [t]); } else if (hostClearTimeout) { hostClearTimeout(t); }
      } catch (e) { /* the timer fires later and finds its call settled */ }
    }
    function dispatch(name, detail) {
      if (!winCustomEvent || !winDispatchEvent) { throw new ErrorCtor('CustomEvent is not available'); }
      apply(winDispatchEvent, win, [new winCustomEvent(name, { detail: detail })]);
    }
    function directHandler() {
      try {
        var mh = win && win.webkit && win.webkit.messageHandlers;
        var h = mh && mh[channel];
        return h && typeof h.postMessage === 'function' ? h : null;
      } catch (e) { return null; }
    }
    // The three native channels as functions made once, so that choosing one per post allocates
    // nothing (docs/performance.md, "Where the 100 B time goes").
    var directTarget = null;  // the handler `directHandler()` found for the post being made
    function postToTransport(text) { return transport.post(text); }
    function postToDirectHandler(text) { return directTarget.postMessage(text); }
    var postType = channel + ':post';
    var postEvent = null;         // the one CustomEvent every post to the relay re-uses
    var postEventBusy = false;    // true while it is being dispatched
    /**
     * Posts one message text to the relay as `<channel>:post`. One CustomEvent serves every post:
     * re-initialised with the text (`initCustomEvent`), dispatched, then emptied (detail null, so
     * the text is not kept alive), which spares WebKit a new event and a new wrapper for it in each
     * of the two worlds per post. A post made while that event is being dispatched (a page
     * listener of `<channel>:post` that calls again) gets a new event, as does every post where
     * `initCustomEvent` is missing. The relay reads the detail during the dispatch only.
     */
    function postToRelay(text) {
      if (!winInitCustomEvent || postEventBusy) {
        dispatch(postType, text);
        return;
      }
      postEventBusy = true;
      try {
        if (postEvent === null) {
          postEvent = new winCustomEvent(postType, { detail: text });
        } else {
          apply(winInitCustomEvent, postEvent, [postType, false, false, text]);
        }
        apply(winDispatchEvent, win, [postEvent]);
      } finally {
        postEventBusy = false;
        if (postEvent !== null) {
          try { apply(winInitCustomEvent, postEvent, [postType, false, false, null]); } catch (e) { postEvent = null; }
        }
      }
    }
    /** The native channel to post through now (spec order: injected, direct, relay), or null. */
    function nativeChannel() {
      if (transport) { return postToTransport; }
      var h = directHandler();
      if (h) {
        directTarget = h;
        return postToDirectHandler;
      }
      if (relayReady && win) { return postToRelay; }
      return null;
    }
    /** The channel to post through now: a native one, else the mocks once `mock` installed some, else null. */
    function currentChannel() {
      return nativeChannel() || (mocks ? mockPost : null);
    }

    // ---- sending ----
    function fail(item, code, message, details) { if (item.entry) { settle(item.entry, failure(code, message, details)); } }
    /** Posts one message; returns false when the channel threw (the call then settles "unavailable"). */
    function transmit(post, item) {
      if (item.entry) { item.entry.queued = null; }
      var result;
      try { result = post === mockPost ? mockPost(item.text, item.entry) : post(item.text); } catch (err) {
        fail(item, 'unavailable', 'The native channel rejected the message', { reason: reasonOf(err) });
        return false;
      }
      if (result && typeof result.then === 'function') {
        whenSettled(result, function (reply) {
          if (typeof reply === 'string' ? reply.length > 0 : isObject(reply)) { receive(reply); }
        }, function () { /* a rejection settles nothing by itself (spec) */ });
      }
      // Binary values (issue 26): their bytes follow the call, through the byte transport.
      if (item.entry && item.entry.uploads && post !== mockPost) { startUploads(item.entry); }
      return true;
    }
    /** Sends the queue in order if a channel is ready; after load without one, fails it "unavailable". */
    function flush() {
      var post = currentChannel();
      var items = queue;
      if (post) {
        while (queue.length) { transmit(post, arrayShift(queue)); }
      } else if (loaded && items.length) {
        queue = [];
        arrayForEach(items, function (item) { fail(item, 'unavailable', NO_CHANNEL, null); });
      }
    }
    /** Sends now, or queues until a channel is ready. Returns whether the message was sent or queued. */
    function enqueueOrSend(item) {
      var post = currentChannel();
      if (post) {
        if (queue.length) { flush(); }
        return transmit(post, item);
      }
      if (loaded) {
        fail(item, 'unavailable', NO_CHANNEL, null);
        return false;
      }
      if (queue.length >= MAX_QUEUE) {
        fail(item, 'too_many_pending_calls', 'More than ' + MAX_QUEUE + ' messages are queued before the native channel is ready', { limit: MAX_QUEUE });
        return false;
      }
      arrayPush(queue, item);
      if (item.entry) { item.entry.queued = item; }
      return true;
    }

    // ---- page -> native calls ----
    function settle(entry, reply) {
      if (entry.done) { return; }
      // Native already answered (a reply held for the upload's end): that answer is the outcome,
      // whatever ends the call meanwhile (its timeout, its signal, a request, a restore).
      if (entry.heldReply && reply.ok !== true) { releaseReply(entry, true); return; }
      entry.done = true;
      entry.heldReply = null;
      if (entry.heldTimer !== null) { cancelLater(entry.heldTimer); entry.heldTimer = null; }
      if (entry.retryTimers) {
        arrayForEach(entry.retryTimers, function (t) { cancelLater(t); });
        entry.retryTimers = null;
      }
      if (entry.id !== null) { mapDelete(pending, entry.id); }
      if (entry.timer !== null) { cancelLater(entry.timer); entry.timer = null; }
      if (entry.onAbort) {
        try { entry.signal.removeEventListener('abort', entry.onAbort); } catch (e) { /* foreign signal */ }
        entry.onAbort = entry.signal = null;
      }
      if (entry.queued) {
        var index = arrayIndexOf(queue, entry.queued);
        if (index >= 0) { arraySplice(queue, index, 1); }
        entry.queued = null;
      }
      entry.onProgress = null;
      if (entry.transfers) { abortTransfers(entry); }
      // A call that fails inside call() itself still answers asynchronously, like every other reply.
      if (entry.starting) { soon(function () { deliver(entry, reply); }); } else { deliver(entry, reply); }
    }
    function deliver(entry, reply) {
      var callback = entry.callback;
      entry.callback = null;
      if (callback) {
        try { callback(reply); } catch (err) { report(err); }
      } else if (reply.ok) {
        entry.resolve(reply.data);
      } else {
        entry.reject(new WebBridgeError(reply.error.code, reply.error.message, reply.error.details));
      }
    }
    function stop(entry, code, message, details) {
      if (entry.done) { return; }
      // Native already answered: no cancel for it, its reply settles the call.
      if (entry.heldReply) { releaseReply(entry, true); return; }
      var wasPosted = !entry.queued;
      var id = entry.id;
      settle(entry, failure(code, message, details));
      if (!wasPosted) { return; }
      // A time limit that passed is named, so native's log and the task's end say `timeout`.
      var cancel = code === 'timeout' ? { v: 1, kind: 'cancel', id: id, reason: 'timeout' } : { v: 1, kind: 'cancel', id: id };
      enqueueOrSend({ text: stringify(cancel), entry: null });
    }
    /**
     * The failure of a call whose signal aborted: `timeout` when the signal timed out
     * (`AbortSignal.timeout`, reason a "TimeoutError"), else `cancelled`.
     */
    function aborted(signal, message) {
      var reason;
      try { reason = signal.reason; } catch (e) { reason = undefined; }
      var timedOut = false;
      try { timedOut = !!reason && typeof reason === 'object' && reason.name === 'TimeoutError'; } catch (e) { /* a hostile reason */ }
      return timedOut ? failure('timeout', 'The call\'s signal timed out', null) : failure('cancelled', message, null);
    }
    function start(entry, task, options, settings) {
      if (typeof task !== 'string' || !task) {
        settle(entry, failure('invalid_message', 'task must be a non-empty string', null));
        return;
      }
      var binary = entry.binary;
      if (binary !== undefined && binary !== 'bytes' && binary !== 'stream') {
        settle(entry, failure('invalid_message', 'The call setting "binary" must be "bytes" or "stream"', null));
        return;
      }
      var signal = settings.signal === undefined ? null : settings.signal;
      if (signal !== null && !(typeof signal === 'object' && typeof signal.addEventListener === 'function' &&
          typeof signal.aborted === 'boolean')) {
        // An AbortController given for its signal would otherwise be ignored without a word.
        settle(entry, failure('invalid_message', 'The call setting "signal" must be an AbortSignal', null));
        return;
      }
      var ms = settings.timeout;
      if (ms !== undefined && ms !== null && !(typeof ms === 'number' && ms >= 0)) {
        settle(entry, failure('invalid_message', 'The call setting "timeout" must be a number of milliseconds', null));
        return;
      }
      // Binary values read as streams (issue 26): each stream listens to the call's signal itself.
      entry.streams = binary === 'stream';
      entry.streamSignal = entry.streams ? signal : null;
      if (signal && signal.aborted) {
        settle(entry, aborted(signal, 'The call was aborted before it was sent'));
        return;
      }
      var id = prefix + '-' + (++counter);
      var text;
      var parts = [];
      try {
        text = encodeCall(id, task, extractBinaries(options, parts, win, 0));
        if (parts.length) { entry.uploads = parts; }
      } catch (err) {
        settle(entry, failure('invalid_options', 'options are not JSON-serialisable', { reason: reasonOf(err) }));
        return;
      }
      entry.id = id;
      mapSet(pending, id, entry);
      if (typeof ms === 'number' && ms > 0 && ms < Infinity) {
        entry.timer = later(function () {
          entry.timer = null;
          stop(entry, 'timeout', 'The call did not finish within ' + ms + ' ms', { timeout: ms });
        }, mathMin(ms, MAX_TIMER_MS));
      }
      if (signal && typeof signal.addEventListener === 'function') {
        entry.signal = signal;
        entry.onAbort = function () {
          var reply = aborted(signal, 'The call was cancelled');
          stop(entry, reply.error.code, reply.error.message, null);
        };
        signal.addEventListener('abort', entry.onAbort);
      }
      enqueueOrSend({ text: text, entry: entry });
    }
    function call(task, options, callbackOrSettings) {
      var entry = { id: null, callback: null, resolve: null, reject: null, onProgress: null, timer: null,
        signal: null, onAbort: null, queued: null, done: false, starting: true,
        uploads: null, uploaded: false, uploadsInFlight: 0, heldReply: null, heldTimer: null, replyReleased: false,
        uploadWaitOver: false, progressWaiting: [], bytesRead: 0,
        retryTimers: null,
        transfers: null, resolving: false, onUploadProgress: null, onDownloadProgress: null,
        binary: undefined, streams: false, streamSignal: null };
      var settings = {};
      var promise;
      if (typeof options === 'function' && callbackOrSettings === undefined) {
        callbackOrSettings = options;
        options = undefined;
      }
      try {
        if (typeof callbackOrSettings === 'function') {
          entry.callback = callbackOrSettings;
        } else if (isObject(callbackOrSettings)) {
          settings = callbackOrSettings;
          entry.callback = typeof settings.callback === 'function' ? settings.callback : null;
          entry.onProgress = typeof settings.onProgress === 'function' ? settings.onProgress : null;
          entry.onUploadProgress = typeof settings.onUploadProgress === 'function' ? settings.onUploadProgress : null;
          entry.onDownloadProgress = typeof settings.onDownloadProgress === 'function' ? settings.onDownloadProgress : null;
          entry.binary = settings.binary;
        }
      } catch (err) { settings = {}; }
      if (!entry.callback) {
        promise = new P(function (resolve, reject) { entry.resolve = resolve; entry.reject = reject; });
      }
      try { start(entry, task, options, settings); } catch (err) {
        settle(entry, failure('invalid_message', 'The call could not be started', { reason: reasonOf(err) }));
      }
      entry.starting = false;
      return promise;
    }
    /** Posts a fire-and-forget call (no id, no reply). Returns whether it was sent or queued. */
    function notify(task, options) {
      try {
        // Binary values travel only with a call that has an id (the byte transport binds them to
        // it): a fire-and-forget message would carry a Uint8Array as {"0": …} and a Blob as {}.
        if (containsBinary(options, 0)) { return false; }
        return typeof task === 'string' && task !== '' && enqueueOrSend({ text: encodeCall(null, task, options), entry: null });
      } catch (err) { return false; }
    }

    // ---- native -> page ----
    /** Takes the app's part size from an answer of the byte transport (a 200, or a refused part). */
    function learnPartBytes(j) {
      var n = isObject(j) ? j.partBytes : null;
      if (typeof n === 'number' && n >= 1 && n <= 9007199254740991 && mathFloor(n) === n) { partBytes = n; }
    }
    /** How long a successful reply waits for its call's upload requests to end (`holdReply`), in ms. */
    var UPLOAD_END_WAIT_MS = 1000;
    /**
     * How long, in ms, a reply held for its call's progress bytes, or the events behind an event
     * with bytes, wait while those bytes make no progress (no byte read): then the reply goes on
     * (the reads still running end with the call) or the event is dropped and reported.
     */
    var BINARY_STALL_MS = 10000;
    /**
     * Holds a reply while something the page must see before it is still coming: the call's
     * progress values whose bytes are being read (`queueProgress`), and, for a successful reply
     * of a call with `onUploadProgress`, its upload requests, so that `onUploadProgress` reports
     * the whole value before the call resolves (native answers a request when the task has read
     * it, and the task's reply can reach the page first; that wait lasts at most
     * `UPLOAD_END_WAIT_MS`). Returns whether it held `m`.
     */
    function holdReply(entry, m) {
      if (entry.heldReply || entry.replyReleased) { return false; }
      var forUploads = waitsForUploads(entry, m);
      if (!forUploads && !progressPending(entry)) { return false; }
      entry.heldReply = m;
      if (forUploads) {
        entry.heldTimer = later(function () {
          entry.heldTimer = null;
          entry.uploadWaitOver = true;
          releaseReply(entry, false);
        }, UPLOAD_END_WAIT_MS);
      }
      // A progress read that stalls (a native stream that never ends, say) does not hold the call.
      watchStall(entry, function () { return entry.heldReply === m && progressPending(entry); },
        function () { releaseReply(entry, true); });
      return true;
    }
    /**
     * Calls `onStall` once `reader` (a call's entry, or an event's reader) has read no byte
     * (`bytesRead`) for `BINARY_STALL_MS` while `waiting()` is true; checks again as long as
     * bytes come.
     */
    function watchStall(reader, waiting, onStall) {
      var seen = reader.bytesRead;
      later(function () {
        if (!waiting()) { return; }
        if (reader.bytesRead === seen) { onStall(); return; }
        watchStall(reader, waiting, onStall);
      }, BINARY_STALL_MS);
    }
    /** Whether reply `m` waits for the call's upload requests to end (`holdReply`). */
    function waitsForUploads(entry, m) {
      return m.ok === true && !!entry.onUploadProgress && entry.uploadsInFlight > 0 && !entry.uploadWaitOver;
    }
    /** Whether progress values of the call wait to reach `onProgress` (`queueProgress`). */
    function progressPending(entry) {
      return entry.progressWaiting.length > 0;
    }
    /** Delivers a held reply once nothing it waits for is left, or at once with `force`. */
    function releaseReply(entry, force) {
      var m = entry.heldReply;
      if (!m || (!force && (waitsForUploads(entry, m) || progressPending(entry)))) { return; }
      entry.heldReply = null;
      entry.replyReleased = true;
      if (entry.heldTimer !== null) { cancelLater(entry.heldTimer); entry.heldTimer = null; }
      onReply(m);
    }
    function onReply(m) {
      onEnvelopeTokens(m);
      var entry = typeof m.id === 'string' ? mapGet(pending, m.id) : undefined;
      var found = m.ok === true ? binariesIn(m.data) : null;
      // A call that settled (its time limit, an abort) reads nothing: native gets the bytes back.
      if (!entry || entry.resolving) { forgoBinaries(found); forgoBinaries(unplaced(m, found)); return; }
      if (holdReply(entry, m)) { return; }
      // The call's last message: the tokens it announces but does not place (an error reply's,
      // those a task offered and did not use) are never read.
      forgoBinaries(unplaced(m, found));
      // A value refused for the part size (the app's transfers changed): the next values take the
      // size the refusal names, though its request's own answer may never be read.
      if (entry.uploaded && m.ok === false && isObject(m.error) && m.error.code === 'payload_too_large' &&
          isObject(m.error.details) && m.error.details.reason === 'part_too_large') {
        learnPartBytes({ partBytes: m.error.details.limit });
      }
      if (found && entry.streams) {
        settle(entry, { ok: true, data: orNull(streamBinaries(m.data, found, entry)) });
        return;
      }
      if (found) {
        // The reply is final; the call settles once its binary values arrived (or failed).
        entry.resolving = true;
        resolveBinaries(m.data, found, entry, function (data) { settle(entry, { ok: true, data: orNull(data) }); },
          function (code, message) { settle(entry, failure(code, message, null)); });
        return;
      }
      settle(entry, m.ok === true ? { ok: true, data: orNull(m.data) }
        : m.ok === false ? wireError(m.error, 'task_failed')
          : failure('invalid_message', 'The reply has no boolean "ok"', null));
    }
    function onProgress(m) {
      onEnvelopeTokens(m);
      var entry = typeof m.id === 'string' ? mapGet(pending, m.id) : undefined;
      var found = binariesIn(m.data);
      // Bytes nobody will read are given back to native at once, not when they expire.
      if (!entry || !entry.onProgress || entry.resolving) { forgoBinaries(found); return; }
      if (found && entry.streams) {
        try { entry.onProgress(orNull(streamBinaries(m.data, found, entry))); } catch (err) { report(err); }
        return;
      }
      queueProgress(entry, m.data, found);
    }
    /**
     * Hands a call's progress values to `onProgress` in the order native sent them. The bytes of
     * a value with binary values are read as soon as it arrives (every value's at once, as native
     * offered them); the value reaches `onProgress` once they are read and every value before it
     * was handed on, and the call's reply waits for the values before it (`holdReply`), so a task
     * that reports bytes and returns at once has its progress seen before its reply. A value
     * whose bytes cannot be read is dropped; the values after it go on.
     */
    function queueProgress(entry, data, found) {
      var item = { data: data, ready: !found, failed: false };
      arrayPush(entry.progressWaiting, item);
      if (found) {
        resolveBinaries(data, found, entry, function (resolved) {
          item.data = resolved;
          item.ready = true;
          drainProgress(entry);
        }, function () {
          item.failed = true;
          item.ready = true;
          drainProgress(entry);
        });
      }
      drainProgress(entry);
    }
    function drainProgress(entry) {
      var waiting = entry.progressWaiting;
      while (waiting.length > 0 && waiting[0].ready && !entry.done) {
        var item = arrayShift(waiting);
        if (!item.failed) { callProgress(entry, item.data); }
      }
      if (!progressPending(entry)) { releaseReply(entry, false); }
    }
    function callProgress(entry, data) {
      if (entry.done || !entry.onProgress) { return; }
      try { entry.onProgress(orNull(data)); } catch (err) { report(err); }
    }
    function onEvent(m) {
      if (m.name === BINARY_ANNOUNCEMENT) { onAnnouncement(m.data); return; }
      onEnvelopeTokens(m);
      var found = binariesIn(m.data);
      // No listener: nobody will read its bytes; native gets them back at once.
      if (typeof m.name !== 'string' || !mapGet(listeners, m.name)) { forgoBinaries(found); return; }
      var item = { name: m.name, data: m.data, ready: !found, failed: false, after: [] };
      arrayPush(eventsWaiting, item);
      if (found) {
        var reader = { done: false, transfers: null, bytesRead: 0 };
        var failed = function (code) {
          if (item.ready) { return; }
          item.failed = true;
          item.ready = true;
          report('the binary values of event ' + item.name + ' failed: ' + code);
          drainEvents();
        };
        resolveBinaries(m.data, found, reader, function (data) {
          if (item.ready) { return; }
          item.data = data;
          item.ready = true;
          drainEvents();
        }, failed);
        // A read that stalls does not hold the events behind it for ever.
        watchStall(reader, function () { return !item.ready; }, function () {
          reader.done = true;
          abortTransfers(reader);
          failed('timeout');
        });
      }
      drainEvents();
    }
    /**
     * Runs `handle(m)` for a message native sent after the events still waiting for their bytes
     * (`drainEvents`), once they reached their listeners; at once when none wait. So a call's
     * reply or progress, or a native call, never overtakes an event native sent before it.
     */
    function afterEvents(handle, m) {
      var count = eventsWaiting.length;
      if (count === 0) { handle(m); return; }
      arrayPush(eventsWaiting[count - 1].after, function () { handle(m); });
    }
    /**
     * Hands events to their listeners in the order native sent them, each followed by the
     * messages that came after it (`afterEvents`). The bytes of an event with binary values are
     * read as soon as it arrives; the event reaches its listeners once they are read and every
     * event before it was handed on. An event whose bytes cannot be read (or make no progress for
     * `BINARY_STALL_MS`) is reported and dropped; what came after it goes on.
     */
    function drainEvents() {
      if (eventsDraining) { return; }  // a listener made native's mock send more: the loop below takes it
      eventsDraining = true;
      try {
        while (eventsWaiting.length > 0 && eventsWaiting[0].ready) {
          var item = arrayShift(eventsWaiting);
          if (!item.failed) { callListeners(item.name, item.data); }
          arrayForEach(item.after, function (run) {
            try { run(); } catch (err) { report(err); }
          });
        }
      } finally {
        eventsDraining = false;
      }
    }
    function callListeners(name, value) {
      var list = mapGet(listeners, name);
      if (!list) { return; }
      var data = orNull(value);
      arrayForEach(arraySlice(list), function (fn) {
        try { fn(data); } catch (err) { report(err); }
      });
    }
    function sendReply(id, reply) {
      if (id !== null) { remember(finishedNativeCalls, id); }
      enqueueOrSend({ text: encodeReply(id, reply), entry: null });
    }
    /** Adds `id` to `ids` (a bounded record: the oldest is forgotten past MAX_EARLY_CANCELS). */
    function remember(ids, id) {
      mapDelete(ids, id);
      mapSet(ids, id, true);
      while (mapSize(ids) > MAX_EARLY_CANCELS) {
        var oldest = null;
        mapForEach(ids, function (v, key) { if (oldest === null) { oldest = key; } });
        mapDelete(ids, oldest);
      }
    }
    function finishNativeCall(id, controller, reply) {
      if (id === null || mapGet(nativeCalls, id) !== controller) { return; }
      mapDelete(nativeCalls, id);
      // Binary values travel only in the page's own calls: in an answer JSON would carry a
      // Uint8Array as {"0": …} and a Blob as {}.
      var binary;
      try { binary = reply.ok && containsBinary(reply.data, 0); } catch (err) { binary = false; }
      if (binary) {
        reply = failure('invalid_result', 'A page handler\'s answer cannot carry binary values', { reason: 'binary_value' });
      }
      sendReply(id, reply);
    }
    function onNativeCall(m) {
      var id = typeof m.id === 'string' && m.id ? m.id : null;
      if (id !== null && mapHas(nativeCalls, id)) { return; }
      // Native gave up on the call before it arrived: it runs nothing and is answered by nobody.
      if (id !== null && mapHas(earlyCancels, id)) { mapDelete(earlyCancels, id); return; }
      if (typeof m.task !== 'string') {
        if (id !== null) { sendReply(id, failure('invalid_message', 'The call has no task name', null)); }
        return;
      }
      var fn = mapGet(handlers, m.task);
      if (!fn) {
        if (id !== null) { sendReply(id, failure('unknown_task', 'No page handler for ' + stringify(m.task), { task: m.task })); }
        return;
      }
      var controller = makeController(controllerWindow);
      if (id !== null) { mapSet(nativeCalls, id, controller); }
      var options = orNull(m.options);
      var result;
      try { result = fn(options, { signal: controller.signal }); } catch (err) {
        soon(function () { finishNativeCall(id, controller, thrownFailure(err)); });
        return;
      }
      whenSettled(result,
        function (value) { finishNativeCall(id, controller, { ok: true, data: orNull(value) }); },
        function (err) { finishNativeCall(id, controller, thrownFailure(err)); });
    }
    /**
     * Native's cancel of call `m.id`. Native sends it once the call was handed to the engine, not
     * after the call's evaluation ended (so that scripts native sends later do not overtake it),
     * so it may arrive first: then the call is remembered as cancelled and never runs.
     */
    function onNativeCancel(m) {
      if (typeof m.id !== 'string' || !m.id) { return; }
      var controller = mapGet(nativeCalls, m.id);
      if (!controller) {
        // A cancel that came after the page answered the call (it crossed the answer) is late,
        // not early: it must not swallow a later call that uses the id.
        if (!mapHas(finishedNativeCalls, m.id)) { remember(earlyCancels, m.id); }
        return;
      }
      mapDelete(nativeCalls, m.id);
      try { controller.abort(); } catch (err) { report(err); }
    }
    /** Entry point for native -> page messages: an object or its JSON text. Never throws. */
    function receive(message) {
      try {
        var m = message;
        if (typeof m === 'string') {
          try { m = parseJSON(m); } catch (e) { return; }
        }
        if (!isObject(m) || (hasOwn(m, 'v') && m.v !== 1)) { return; }
        switch (m.kind) {
          case 'reply': afterEvents(onReply, m); break;
          case 'progress': afterEvents(onProgress, m); break;
          case 'event': onEvent(m); break;
          case 'call': afterEvents(onNativeCall, m); break;
          case 'cancel': afterEvents(onNativeCancel, m); break;
          case 'tasks': onTasks(m); break;
          default: break;
        }
      } catch (err) {
        report(err);
      }
    }

    // ---- binary values through the byte transport (issue 26; docs/protocol.md, "Binary values") ----
    /** Tells native to end download `token` (`?cancel`): one the page stopped early, or never read. */
    function cancelDownload(token) {
      try {
        var told = binaryFetch(token, { method: 'GET', cache: 'no-store', credentials: 'omit' }, 'cancel');
        whenSettled(told, function () {}, function () {});
      } catch (err) { /* no transport: nothing to tell */ }
    }
    /** Fetches `token`'s URL: whole, the part at `offset`, or `?cancel` when offset is 'cancel'. */
    function binaryFetch(token, init, offset) {
      if (!winFetch) { throw new ErrorCtor('fetch is not available'); }
      var url = BINARY_URL + token + (offset === undefined ? '' : offset === 'cancel' ? '?cancel' : '?offset=' + offset);
      return apply(winFetch, win || undefined, [url, init]);
    }
    function abortTransfers(entry) {
      var controllers = entry.transfers;
      entry.transfers = null;
      if (!controllers) { return; }
      arrayForEach(controllers, function (c) { try { c.abort(); } catch (e) { /* already done */ } });
    }
    function track(entry, controller) {
      if (!entry) { return; }
      if (!entry.transfers) { entry.transfers = []; }
      arrayPush(entry.transfers, controller);
    }
    /**
     * Sends each binary value of a posted call as the body of its own request (`POST`, no
     * Content-Type, so no CORS preflight). A Blob is read into an ArrayBuffer first: WebKitGTK
     * 2.50 crashes reading a Blob request body in the UI process (webkit_uri_scheme_request_get_http_body).
     * A value over the part size goes in parts (`?offset=<n>`), each sent once native answered
     * the one before 200: views of the page's bytes, or a Blob read one slice at a time. Each 200
     * answer tells the app's part size (`partBytes`); the next parts take it.
     */
    function startUploads(entry) {
      var parts = entry.uploads;
      entry.uploads = null;
      entry.uploaded = true;
      var total = 0;
      var loaded = 0;
      arrayForEach(parts, function (part) { total += part.size; });
      function unavailable(err) {
        if (!entry.done) { stop(entry, 'unavailable', transportUnavailable(err), { reason: reasonOf(err) }); }
      }
      /**
       * A refused body or part ends the value: no more parts go. Its answer's `code` (the code
       * native ended the upload with) settles the call at once, unless it is `cancelled` (native's
       * task stopped reading: its reply settles the call) or `unknown_transfer` (no task claimed
       * the value: the task's reply settles it).
       */
      function refused(response, retry, delay) {
        var status = response ? responseStatus(response) : 0;
        var reading;
        try { reading = responseJSON(response); } catch (err) { return; }
        whenSettled(reading, function (j) {
          // A part over the app's part size: its answer tells the size, which the next values
          // take, also when native's reply settled the call first.
          learnPartBytes(j);
          if (entry.done) { return; }
          var code = isObject(j) && typeof j.code === 'string' ? j.code : null;
          // Not let wait for the claim (it came before native admitted its call, or other
          // frames' requests fill the waits): sent again a moment later, a few times.
          if (code === 'unknown_transfer' && j.reason === 'no_room' && retry) {
            if (!entry.retryTimers) { entry.retryTimers = []; }
            arrayPush(entry.retryTimers, later(retry, delay));
            return;
          }
          if (!code || code === 'ok' || code === 'cancelled' || code === 'unknown_transfer') { return; }
          stop(entry, code, 'The byte transport refused the binary value',
            { status: status, reason: typeof j.reason === 'string' ? j.reason : null });
        }, function () { /* no code: the reply settles the call */ });
      }
      /**
       * Posts `body` (`size` bytes at `offset`, or the whole value when offset is undefined); `next`
       * runs after a 200. `tries` counts the sends of this request refused for want of room (`no_room`).
       */
      function send(token, offset, body, size, next, tries) {
        if (entry.done) { return; }
        tries = tries || 0;
        var controller = makeController(controllerWindow);
        track(entry, controller);
        var request;
        try {
          request = binaryFetch(token, { method: 'POST', body: body, signal: controller.signal,
            cache: 'no-store', credentials: 'omit' }, offset);
        } catch (err) { unavailable(err); return; }
        entry.uploadsInFlight += 1;
        var ended = function () { entry.uploadsInFlight -= 1; releaseReply(entry, false); };
        whenSettled(request, function (response) {
          if (!response || responseStatus(response) !== 200) {
            ended();
            refused(response, tries < NO_ROOM_RETRIES ? function () { send(token, offset, body, size, next, tries + 1); } : null,
              mathMin(NO_ROOM_MAX_MS, NO_ROOM_FIRST_MS * mathPow(2, tries)));
            return;
          }
          loaded += size;
          if (!entry.done && entry.onUploadProgress) {
            try { entry.onUploadProgress({ loaded: loaded, total: total }); } catch (err) { report(err); }
          }
          ended();
          var reading;
          try { reading = responseJSON(response); } catch (err) { reading = null; }
          whenSettled(reading, function (j) {
            learnPartBytes(j);
            if (next && !entry.done) { next(); }
          }, function () { if (next && !entry.done) { next(); } });
        }, function (err) {
          ended();
          // Native answers the call for a refused body; only a transport that is not there settles it here.
          if (!controller.signal.aborted) { unavailable(err); }
        });
      }
      function sendParts(part, offset) {
        if (entry.done) { return; }
        var end = mathMin(part.size, offset + partBytes);
        var next = end < part.size ? function () { sendParts(part, end); } : null;
        var body = part.body;
        var kind = binaryKind(body);
        if (kind === 'blob') {
          var reading;
          try { reading = blobBytes(body, offset, end); } catch (err) { unavailable(err); return; }
          whenSettled(reading, function (buffer) { send(part.token, offset, buffer, end - offset, next); }, unavailable);
          return;
        }
        var view;
        try {
          view = kind === 'buffer' ? new Uint8ArrayCtor(body, offset, end - offset)
            : new Uint8ArrayCtor(platformGet(platform.typedArrayBuffer, body, 'buffer'),
              platformGet(platform.typedArrayByteOffset, body, 'byteOffset') + offset, end - offset);
        } catch (err) {
          // The page detached or shrank the value's buffer after the call (transferred it to a worker).
          stop(entry, 'invalid_options', 'The binary value changed after the call', { reason: reasonOf(err) });
          return;
        }
        send(part.token, offset, view, end - offset, next);
      }
      arrayForEach(parts, function (part) {
        if (part.size > partBytes) { sendParts(part, 0); return; }
        if (binaryKind(part.body) !== 'blob') { send(part.token, undefined, part.body, part.size, null); return; }
        var reading;
        try { reading = blobBytes(part.body); } catch (err) { unavailable(err); return; }
        whenSettled(reading, function (buffer) { send(part.token, undefined, buffer, part.size, null); }, unavailable);
      });
    }
    /**
     * Records the download tokens a reply, progress or event message introduces (its envelope's own
     * `binary` member, which only native writes; never one inside `data`), as the announcement
     * event's tokens, before its data is searched for placeholders.
     */
    function onEnvelopeTokens(m) {
      if (hasOwn(m, 'binary') && isArray(m.binary)) { onAnnouncement({ tokens: m.binary }); }
    }
    /**
     * Gives back the downloads of the announced placeholders `found` (token -> size) that the
     * page will not read (no `onProgress`, no listener, a call that settled): native frees their
     * bytes now (`?cancel`) instead of holding them against its budgets until they expire.
     */
    function forgoBinaries(found) {
      if (!found) { return; }
      mapForEach(found, function (size, token) {
        mapDelete(announced, token);
        if (mapHas(mockOffers, token)) { mapDelete(mockOffers, token); return; }
        cancelDownload(token);
      });
    }
    /**
     * The tokens `m`'s envelope announces (`binary`) that are not among the placeholders `found`
     * in its data (token -> null), or null when there are none.
     */
    function unplaced(m, found) {
      if (!hasOwn(m, 'binary') || !isArray(m.binary)) { return null; }
      var left = new M();
      arrayForEach(m.binary, function (token) {
        if (typeof token === 'string' && mapHas(announced, token) && !(found && mapHas(found, token))) {
          mapSet(left, token, null);
        }
      });
      return mapSize(left) ? left : null;
    }
    function onAnnouncement(data) {
      var tokens = isObject(data) && isArray(data.tokens) ? data.tokens : [];
      arrayForEach(tokens, function (token) { if (typeof token === 'string') { mapSet(announced, token, true); } });
      while (mapSize(announced) > MAX_ANNOUNCED) {
        var oldest = null;
        mapForEach(announced, function (v, token) { if (oldest === null) { oldest = token; } });
        mapDelete(announced, oldest);
      }
    }
    /** The announced placeholders in `data` (token -> size or null), or null when there are none. */
    function binariesIn(data) {
      if (!mapSize(announced) || data === null || typeof data !== 'object') { return null; }
      var found = new M();
      findPlaceholders(data, announced, found, 0);
      return mapSize(found) ? found : null;
    }
    /** Fetches every binary value in `found`, then calls `done` with `data` where each placeholder is a `Uint8Array`. */
    function resolveBinaries(data, found, entry, done, failed) {
      var bytes = new M();
      var remaining = mapSize(found);
      var total = 0;
      var loaded = 0;
      var over = false;
      mapForEach(found, function (size) { total = total === null || size === null ? null : total + size; });
      function fail(code, message) {
        if (over) { return; }
        over = true;
        failed(code, message || 'A binary value could not be read');
      }
      mapForEach(found, function (size, token) {
        download(token, size, entry, function (n) {
          loaded += n;
          if (entry) { entry.bytesRead += n; }
          if (entry && !entry.done && entry.onDownloadProgress) {
            try { entry.onDownloadProgress({ loaded: loaded, total: total }); } catch (err) { report(err); }
          }
        }, function (value) {
          mapSet(bytes, token, value);
          if (--remaining === 0 && !over) {
            over = true;
            var result = replacePlaceholders(data, announced, bytes, 0);
            mapForEach(found, function (s, t) { mapDelete(announced, t); });
            done(result);
          }
        }, fail);
      });
    }
    /** Reads one download into a `Uint8Array`, chunk by chunk from its source (`fetchSource`). */
    function download(token, size, entry, onChunk, onBytes, onError) {
      if (mapHas(mockOffers, token)) { readMockOffer(token, onChunk, onBytes, onError); return; }
      var source = fetchSource(token, size, entry);
      var buffer = size !== null ? new Uint8ArrayCtor(size) : null;
      var chunks = [];
      var offset = 0;
      function pump() {
        source.next(function (chunk) {
          if (chunk === null) {
            if (buffer && offset !== size) { onError('invalid_result', 'The binary value ended early'); return; }
            if (!buffer) {
              buffer = new Uint8ArrayCtor(offset);
              var at = 0;
              arrayForEach(chunks, function (c) { uint8Set(buffer, c, at); at += chunkLength(c); });
            }
            onBytes(buffer);
            return;
          }
          var length = chunkLength(chunk);
          if (buffer) {
            if (offset + length > size) {
              source.stop();
              onError('invalid_result', 'The binary value is longer than announced');
              return;
            }
            uint8Set(buffer, chunk, offset);
          } else {
            arrayPush(chunks, chunk);
          }
          offset += length;
          onChunk(length);
          pump();
        }, onError);
      }
      pump();
    }

    /**
     * `data` with each announced placeholder in `found` replaced by a binary stream (the call
     * setting `binary: "stream"`): `{stream, size, type}`, its `stream` a `ReadableStream` of
     * `Uint8Array` chunks that fetches the bytes only as the page reads them. The tokens are used
     * up here; download progress counts the chunks read, over the streams of this message.
     */
    function streamBinaries(data, found, entry) {
      var types = new M();
      findPlaceholders(data, announced, new M(), 0, types);
      var onDownload = entry.onDownloadProgress;
      var total = 0;
      var loaded = 0;
      mapForEach(found, function (size) { total = total === null || size === null ? null : total + size; });
      function onChunk(n) {
        loaded += n;
        if (onDownload) {
          try { onDownload({ loaded: loaded, total: total }); } catch (err) { report(err); }
        }
      }
      var values = new M();
      mapForEach(found, function (size, token) {
        var type = mapHas(types, token) ? mapGet(types, token) : null;
        mapSet(values, token, binaryStream(token, size, type, entry.streamSignal, onChunk));
      });
      var result = replacePlaceholders(data, announced, values, 0);
      mapForEach(found, function (s, t) { mapDelete(announced, t); });
      return result;
    }
    /**
     * One binary value as a stream: `{stream, size, type}` (frozen). Reading `stream` pulls one
     * chunk at a time from its source (the byte transport's `GET`, started by the first read, or a
     * mock's bytes), so nothing is read ahead of the page beyond what `fetch` itself buffers. The
     * stream ends exactly once: closed after exactly `size` bytes (any count when `size` is null);
     * errored with a WebBridgeError, code `invalid_result` (shorter or longer than `size`),
     * `cancelled` (the call's signal aborted) or native's refusal code / `unavailable` (native
     * ended it, the transport failed); or cancelled by the reader, which aborts the fetch so
     * native's producer sees cancellation.
     */
    function binaryStream(token, size, type, signal, onChunk) {
      var source = null;
      var sink = null;     // the stream's controller
      var over = false;
      var offset = 0;
      var mockBody = mapHas(mockOffers, token) ? mapGet(mockOffers, token) : null;
      var fromNative = mockBody === null;
      mapDelete(mockOffers, token);
      function onAbort() { end('cancelled', 'The call was cancelled'); }
      function end(code, message) {
        if (over) { return; }
        over = true;
        if (signal) {
          try { signal.removeEventListener('abort', onAbort); } catch (e) { /* foreign signal */ }
        }
        // A value ended before its first read frees native's offer now, not after its lifetime.
        if (source) { source.stop(); } else if (fromNative) { cancelDownload(token); }
        source = null;
        mockBody = null;
        if (!sink) { return; }
        try {
          if (code === null) { sink.close(); } else if (code !== undefined) { sink.error(new WebBridgeError(code, message, null)); }
        } catch (e) { /* the stream already ended */ }
      }
      /** Reads one chunk into the stream; `resolve` runs when the pull is over. */
      function pull(resolve) {
        if (over) { resolve(); return; }
        if (!source) { source = mockBody !== null ? mockSource(mockBody) : fetchSource(token, size); mockBody = null; }
        source.next(function (chunk) {
          if (over) { resolve(); return; }
          if (chunk === null) {
            if (size !== null && offset !== size) { end('invalid_result', 'The binary value ended early'); } else { end(null); }
            resolve();
            return;
          }
          var length = chunkLength(chunk);
          if (size !== null && offset + length > size) {
            end('invalid_result', 'The binary value is longer than announced');
            resolve();
            return;
          }
          offset += length;
          if (!length) { pull(resolve); return; }
          try { sink.enqueue(chunk); } catch (e) { /* cancelled meanwhile */ }
          onChunk(length);
          resolve();
        }, function (code, message) { end(code, message || 'A binary value could not be read'); resolve(); });
      }
      var RS = winReadableStream;
      var stream = null;
      if (RS) {
        stream = new RS({
          start: function (controller) { sink = controller; },
          pull: function () { return new P(function (resolve) { pull(resolve); }); },
          cancel: function () { end(undefined); }
        }, { highWaterMark: 0 });
      }
      if (!stream) {
        over = true;
      } else if (signal && signal.aborted) {
        end('cancelled', 'The call was cancelled');
      } else if (signal && typeof signal.addEventListener === 'function') {
        signal.addEventListener('abort', onAbort);
      }
      return freeze({ stream: stream, size: size, type: type });
    }
    /**
     * The byte transport's body of download `token` as a source of chunks: `next(onChunk, onError)`
     * (chunk null at the end), `stop()`. A value of known `size` is read in parts
     * (`GET …?offset=<n>`, the next one asked for when the page has read the one before, so
     * neither process holds more than a part of it); one of unknown size in one `GET`. With an
     * `entry`, each request is aborted when its call settles (`abortTransfers`).
     */
    function fetchSource(token, size, entry) {
      var parted = size !== null;
      var controller = null;
      var reader = null;
      var whole = null;     // a response without a readable body: its bytes, once
      var offset = 0;       // the bytes read so far
      var partStart = 0;    // where the part being read started
      var stopped = false;
      function failed(onError, c) {
        return function (err) { if (c.signal.aborted) { onError('cancelled', reasonOf(err)); } else { onError('unavailable', transportUnavailable(err)); } };
      }
      /** The end of a part: the value's end, or the next part (a part that brought nothing ended early). */
      function partEnded(onChunk, onError) {
        reader = null;
        whole = null;
        if (!parted || offset >= size || offset === partStart) { onChunk(null); return; }
        // The call settled (aborted, timed out) between two parts: nothing more is read.
        if (entry && entry.done) { onError('cancelled'); return; }
        request(onChunk, onError);
      }
      /**
       * Ends the value: aborts the part being fetched and, for a value read in parts and not read
       * to its end, tells native (`?cancel`), which may be between two parts and so see no abort.
       */
      function stop() {
        if (stopped) { return; }
        stopped = true;
        if (controller) {
          try { controller.abort(); } catch (e) { /* already done */ }
        }
        if (parted && offset < size) { cancelDownload(token); }
      }
      function read(onChunk, onError) {
        if (whole !== null) {
          var bytes = whole;
          whole = false;
          if (bytes === false) { partEnded(onChunk, onError); return; }
          offset += bytes.length;
          onChunk(bytes);
          return;
        }
        var c = controller;
        whenSettled(readStep(reader), function (step) {
          if (step.done) { partEnded(onChunk, onError); return; }
          offset += chunkLength(step.value);
          onChunk(step.value);
        }, failed(onError, c));
      }
      function request(onChunk, onError) {
        var c = controller = makeController(controllerWindow);
        track(entry, c);
        partStart = offset;
        var pending;
        try {
          pending = binaryFetch(token, { method: 'GET', signal: c.signal, cache: 'no-store', credentials: 'omit' },
            parted ? offset : undefined);
        } catch (err) { onError('unavailable', transportUnavailable(err)); return; }
        whenSettled(pending, function (response) {
          if (stopped) { onError('cancelled'); return; }
          if (!response || !responseOk(response)) {
            whenSettled(response && responseJSON(response), function (j) {
              onError(isObject(j) && typeof j.code === 'string' ? j.code : 'unavailable');
            }, function () { onError('unavailable'); });
            return;
          }
          reader = bodyReader(response);
          if (reader) { read(onChunk, onError); return; }
          whenSettled(responseBytes(response), function (b) {
            whole = new Uint8ArrayCtor(b);
            read(onChunk, onError);
          }, failed(onError, c));
        }, failed(onError, c));
      }
      return {
        next: function (onChunk, onError) {
          // Whatever ends the value early (a refusal, an abort, a failed read) ends it on native's side too.
          function failed(code, message) { stop(); onError(code, message); }
          if (reader || whole !== null) { read(onChunk, failed); return; }
          request(onChunk, failed);
        },
        stop: stop
      };
    }

    // ---- mock mode (no native channel: a normal browser) ----
    /**
     * Binary values in a mock's answer (result or progress) as native's would travel: each becomes
     * an announced placeholder whose bytes the page then reads (`download`) from `mockOffers`
     * instead of the byte transport, so the page gets a `Uint8Array` copy, with download progress.
     */
    function offerMockBinaries(data) {
      var parts = [];
      var replaced = extractBinaries(data, parts, win, 0);
      if (!parts.length) { return data; }
      var tokens = [];
      arrayForEach(parts, function (part) { mapSet(mockOffers, part.token, part.body); arrayPush(tokens, part.token); });
      onAnnouncement({ tokens: tokens });
      // Offers the page will never read (announcements trimmed past MAX_ANNOUNCED) are dropped.
      mapForEach(mockOffers, function (body, token) { if (!mapHas(announced, token)) { mapDelete(mockOffers, token); } });
      return replaced;
    }
    /** Reads one mock offer (a Blob, an ArrayBuffer or a Uint8Array) into a new `Uint8Array`, once. */
    function readMockOffer(token, onChunk, onBytes, onError) {
      var body = mapGet(mockOffers, token);
      mapDelete(mockOffers, token);
      function copy(source) {
        var bytes = new Uint8ArrayCtor(source.byteLength);
        uint8Set(bytes, source instanceof Uint8ArrayCtor ? source : new Uint8ArrayCtor(source), 0);
        onChunk(bytes.length);
        onBytes(bytes);
      }
      if (binaryKind(body) !== 'blob') { soon(function () { copy(body); }); return; }
      var reading;
      try { reading = blobBytes(body); } catch (err) { onError('invalid_result', reasonOf(err)); return; }
      whenSettled(reading, copy, function (err) { onError('invalid_result', reasonOf(err)); });
    }
    /**
     * A mock offer (a Blob, an ArrayBuffer or a Uint8Array) as a source of chunks for a binary
     * stream, as `fetchSource`: a copy of the next MOCK_CHUNK_BYTES per read (a Blob read one
     * slice at a time), so the page never shares the mock's buffer.
     */
    function mockSource(body) {
      var offset = 0;
      var total = binaryKind(body) === 'blob' ? body.size : body.byteLength;
      return {
        next: function (onChunk, onError) {
          if (offset >= total) { soon(function () { onChunk(null); }); return; }
          var start = offset;
          var end = mathMin(total, start + MOCK_CHUNK_BYTES);
          offset = end;
          if (binaryKind(body) !== 'blob') {
            var view = body instanceof Uint8ArrayCtor ? body : new Uint8ArrayCtor(body);
            var bytes = new Uint8ArrayCtor(end - start);
            uint8Set(bytes, view.subarray(start, end), 0);
            soon(function () { onChunk(bytes); });
            return;
          }
          var reading;
          try { reading = blobBytes(body, start, end); } catch (err) { onError('invalid_result', reasonOf(err)); return; }
          whenSettled(reading, function (b) { onChunk(new Uint8ArrayCtor(b)); }, function (err) { onError('invalid_result', reasonOf(err)); });
        },
        stop: function () { body = null; offset = total; }
      };
    }
    function finishMock(id, controller, reply) {
      if (id === null || mapGet(mockCalls, id) !== controller) { return; }
      mapDelete(mockCalls, id);
      var text;
      // Reading the result runs the page's getters, toJSON and proxy traps, which may throw:
      // the call still settles, invalid_result, as a result JSON cannot carry does in the app.
      try {
        text = encodeReply(id, reply.ok ? { ok: true, data: offerMockBinaries(reply.data) } : reply);
      } catch (err) {
        text = encodeReply(id, failure('invalid_result', 'The handler result is not JSON', { reason: reasonOf(err) }));
      }
      receive(text);
    }
    /** Runs one mock as native runs a task: later, with the options as JSON gave them, answering with native's shapes. */
    function runMock(id, task, options, controller) {
      if (id !== null && mapGet(mockCalls, id) !== controller) { return; }
      var fn = mapGet(mocks, task);
      if (!fn) {
        finishMock(id, controller, failure('unknown_task', 'No task named ' + stringify(task), { task: task }));
        return;
      }
      var context = {
        signal: controller.signal,
        progress: function (data) {
          if (id === null || mapGet(mockCalls, id) !== controller || notJSON(data)) { return false; }
          var text;
          try { text = stringify({ v: 1, kind: 'progress', id: id, data: orNull(offerMockBinaries(data)) }); } catch (e) { return false; }
          receive(text);
          return true;
        }
      };
      var result;
      try { result = fn(options, context); } catch (err) {
        finishMock(id, controller, thrownFailure(err));
        return;
      }
      whenSettled(result,
        function (value) { finishMock(id, controller, { ok: true, data: orNull(value) }); },
        function (err) { finishMock(id, controller, thrownFailure(err)); });
    }
    /**
     * The mock channel: takes the shim's message text as native would and answers through
     * `receive`. A call's binary values (`entry.uploads`) reach the mock as the page gave them,
     * in place of their placeholders; their upload progress reports them sent.
     */
    /** Aborts the running mock of call `id`, if any (a cancel, or a restore that ended the call). */
    function cancelMock(id) {
      var running = mapGet(mockCalls, id);
      if (running) {
        mapDelete(mockCalls, id);
        try { running.abort(); } catch (err) { report(err); }
      }
    }
    function mockPost(text, entry) {
      var m = parseJSON(text);
      if (m.kind === 'reply') {
        answerMockPageCall(m);
        return;
      }
      if (m.kind === 'cancel') {
        cancelMock(m.id);
        return;
      }
      if (m.kind !== 'call' || typeof m.task !== 'string') { return; }
      var id = typeof m.id === 'string' ? m.id : null;
      var controller = makeController(controllerWindow);
      if (id !== null) {
        mapSet(mockCalls, id, controller);
      }
      var options = orNull(m.options);
      var parts = entry && entry.uploads;
      if (parts) {
        entry.uploads = null;
        var tokens = new M();
        var values = new M();
        var total = 0;
        arrayForEach(parts, function (part) {
          mapSet(tokens, part.token, true);
          mapSet(values, part.token, part.value);
          total += part.size;
        });
        options = replacePlaceholders(options, tokens, values, 0);
        if (entry.onUploadProgress) {
          soon(function () {
            if (entry.done || !entry.onUploadProgress) { return; }
            try { entry.onUploadProgress({ loaded: total, total: total }); } catch (err) { report(err); }
          });
        }
      }
      soon(function () { runMock(id, m.task, options, controller); });
    }
    /** Engages mock mode (no mocks yet: calls get "unknown_task"), unless a native channel exists. */
    function engageMocks() {
      if (nativeChannel()) { return false; }
      if (!mocks) {
        mocks = new M();
        flush();
      }
      return true;
    }
    /**
     * Mock mode, native's side: sends the page an event as the app's `emit` does (later, the data
     * as JSON gives it). Returns false, sending nothing, when a native channel exists.
     */
    function mockEmit(name, data) {
      if (typeof name !== 'string' || !name) { throw new TypeErrorCtor('mockEmit takes an event name'); }
      var text;
      try { text = stringify({ v: 1, kind: 'event', name: name, data: orNull(data) }); } catch (err) {
        throw new TypeErrorCtor('mockEmit: the data is not JSON (' + reasonOf(err) + ')');
      }
      if (!engageMocks()) { return false; }
      soon(function () { receive(text); });
      return true;
    }
    /**
     * Mock mode, native's side: calls the page's handler as the app's `callPage` does and resolves
     * with its answer (as JSON gives it), or rejects with a WebBridgeError: the handler's code,
     * "unknown_task", or "timeout" after `settings.timeout` ms (default 30,000; the handler's
     * signal aborts, as native's cancel makes it). Rejects "unavailable" when a native channel exists.
     */
    function mockCallPage(handler, options, settings) {
      if (typeof handler !== 'string' || !handler) { throw new TypeErrorCtor('mockCallPage takes a handler name'); }
      var text;
      mockPageCallNumber += 1;
      var id = 'mock-n-' + mockPageCallNumber;
      try { text = stringify({ v: 1, kind: 'call', id: id, task: handler, options: orNull(options) }); } catch (err) {
        throw new TypeErrorCtor('mockCallPage: the options are not JSON (' + reasonOf(err) + ')');
      }
      var ms = isObject(settings) && typeof settings.timeout === 'number' && settings.timeout >= 0 ? settings.timeout : 30000;
      return new P(function (resolve, reject) {
        if (!engageMocks()) {
          reject(new WebBridgeError('unavailable', 'A native channel exists: the app calls the page', null));
          return;
        }
        var call = { resolve: resolve, reject: reject, timer: null };
        mapSet(mockPageCalls, id, call);
        call.timer = later(function () {
          if (mapGet(mockPageCalls, id) !== call) { return; }
          mapDelete(mockPageCalls, id);
          receive({ v: 1, kind: 'cancel', id: id });
          reject(new WebBridgeError('timeout', 'The page did not answer within ' + ms + ' ms', { timeout: ms }));
        }, ms);
        soon(function () { receive(text); });
      });
    }
    /** Settles a mockCallPage call with the page's reply (posted to the mock channel). */
    function answerMockPageCall(m) {
      var call = typeof m.id === 'string' ? mapGet(mockPageCalls, m.id) : undefined;
      if (!call) { return; }
      mapDelete(mockPageCalls, m.id);
      cancelLater(call.timer);
      if (m.ok === true) {
        call.resolve(orNull(m.data));
      } else {
        var error = wireError(m.error, 'task_failed').error;
        call.reject(new WebBridgeError(error.code, error.message, error.details));
      }
    }
    /**
     * Installs (or replaces; `null` removes) mock tasks and engages mock mode, unless a native
     * channel exists: then it installs nothing and returns false.
     */
    function mock(table) {
      if (nativeChannel()) {
        try {
          var c = (win && win.console) || (typeof console !== 'undefined' ? console : null);
          if (c && typeof c.warn === 'function') { c.warn('WebBridge.mock: a native channel exists; mocks are not used'); }
        } catch (e) { /* nothing to warn */ }
        return false;
      }
      if (!isObject(table)) { throw new TypeErrorCtor('mock takes an object of task name -> function'); }
      var names = objectKeys(table);
      arrayForEach(names, function (name) {
        var fn = table[name];
        if (!name || (fn !== null && typeof fn !== 'function')) {
          throw new TypeErrorCtor('mock ' + stringify(name) + ' must be a function or null');
        }
      });
      if (!mocks) { mocks = new M(); }
      arrayForEach(names, function (name) {
        var fn = table[name];
        if (fn === null) { mapDelete(mocks, name); } else { mapSet(mocks, name, fn); }
      });
      flush();
      return true;
    }

    // ---- feature detection ----
    function onTasks(m) {
      if (!isObject(m.tasks)) { return; }
      if (typeof m.revision === 'number') {
        if (m.revision < tasksRevision) { return; }
        tasksRevision = m.revision;
      }
      var list = objectCreate(null);
      var given = m.tasks;
      arrayForEach(objectKeys(given), function (name) {
        var version = given[name];
        list[name] = typeof version === 'string' && version ? version : null;
      });
      nativeTasks = list;
    }
    /** The task list in force: the mocks' in mock mode, else native's (null when native never said). */
    function currentTasks() {
      if (mocks && !nativeChannel()) {
        var list = objectCreate(null);
        mapForEach(mocks, function (fn, name) { list[name] = null; });
        return list;
      }
      return nativeTasks;
    }
    function tasks() {
      var list = currentTasks();
      return list ? plainTaskList(list) : null;
    }
    function supports(name, minimumVersion) {
      var list = currentTasks();
      if (!list || typeof name !== 'string' || !hasOwn(list, name)) { return false; }
      if (minimumVersion === undefined || minimumVersion === null) { return true; }
      var version = list[name];
      return typeof version === 'string' && compareVersions(version, '' + minimumVersion) >= 0;
    }

    // ---- events and handlers ----
    function requireName(name, what) {
      if (typeof name !== 'string' || !name) { throw new TypeErrorCtor(what + ' name must be a non-empty string'); }
    }
    function off(name, fn) {
      var list = mapGet(listeners, name);
      if (!list) { return; }
      var rest = fn === undefined ? [] : arrayFilter(list, function (f) { return f !== fn; });
      if (rest.length) { mapSet(listeners, name, rest); } else { mapDelete(listeners, name); }
      var subs = mapGet(subscriptions, name);
      if (subs && fn !== undefined) { mapDelete(subs, fn); }
      if (subs && (fn === undefined || !mapSize(subs))) { mapDelete(subscriptions, name); }
    }
    /**
     * Registers `fn` for event `name` (once: the same function runs once per event) and returns a
     * function that ends this subscription. The listener stays until every unsubscribe function
     * `on` returned for it was called, or `off` removed it; an unsubscribe function works once,
     * and only on the registration it was made for (a stale one never removes a newer one).
     */
    function on(name, fn) {
      requireName(name, 'event');
      if (typeof fn !== 'function') { throw new TypeErrorCtor('listener must be a function'); }
      var list = mapGet(listeners, name) || [];
      var subs = mapGet(subscriptions, name);
      if (!subs) { subs = new M(); mapSet(subscriptions, name, subs); }
      var record = arrayIndexOf(list, fn) < 0 ? null : mapGet(subs, fn);
      if (arrayIndexOf(list, fn) < 0) { mapSet(listeners, name, arrayConcat(list, [fn])); }
      if (!record) { record = { count: 0 }; mapSet(subs, fn, record); }
      record.count++;
      var used = false;
      return function () {
        var current = mapGet(subscriptions, name);
        if (used || !current || mapGet(current, fn) !== record) { return; }
        used = true;
        record.count--;
        if (record.count <= 0) { off(name, fn); }
      };
    }
    function handle(name, fn) {
      requireName(name, 'handler');
      if (fn === null || fn === undefined) { mapDelete(handlers, name); return; }
      if (typeof fn !== 'function') { throw new TypeErrorCtor('handler must be a function or null'); }
      mapSet(handlers, name, fn);
    }

    // ---- history notices ----
    function historyNotice(type) {
      var url;
      try { url = win.location.href; } catch (e) { return; }
      if (typeof url !== 'string') { return; }
      later(function () { notify('History', { type: type, url: url }); }, 0);
    }
    /** Wraps pushState/replaceState once per window (R50) and listens for popstate; never fires one. */
    function installHistory() {
      var h = win.history;
      if (!h || (typeof h.pushState === 'function' && h.pushState[HISTORY_MARK])) { return; }
      ['pushState', 'replaceState'].forEach(function (name) {
        var original = h[name];
        if (typeof original !== 'function') { return; }
        var wrapper = function () {
          var result = apply(original, h, arguments);
          historyNotice(name);
          return result;
        };
        defineProperty(wrapper, HISTORY_MARK, { value: true });
        try { h[name] = wrapper; } catch (e) { /* a frozen history keeps its methods */ }
      });
      historyInstalled = true;
      listen();
    }

    var bridge = freeze({
      version: VERSION, call: call, notify: notify, on: on, off: off, handle: handle,
      supports: supports, tasks: tasks, mock: mock, mockEmit: mockEmit, mockCallPage: mockCallPage,
      pendingCount: function () { return mapSize(pending); },
      WebBridgeError: WebBridgeError,
      _receive: receive,
      _listen: function () { if (win && winAddEventListener) { listen(); } },
      _sizes: function () {
        return { pending: mapSize(pending), queued: queue.length, listeners: mapSize(listeners),
          handlers: mapSize(handlers), nativeCalls: mapSize(nativeCalls), earlyCancels: mapSize(earlyCancels), mockCalls: mapSize(mockCalls) };
      }
    });

    // ---- window listeners ----
    var historyInstalled = false;
    function onReady() { relayReady = true; flush(); }
    function onMessage(event) {
      if (event && typeof event.detail === 'string') { receive(event.detail); }
    }
    function onLoad() { loaded = true; flush(); }
    // A document restored from the back-forward cache keeps its pending calls, but native
    // settled them as `navigated` when the page went away: they settle here the same way. Only the
    // browser's own events (`isTrusted`, unforgeable) say so: a script can dispatch a `pageshow`
    // with persisted: true in a document that never left. Only the calls made before the restore
    // began: the page's own code runs before `pageshow` reaches a bubbling listener (`visibilitychange`
    // to visible comes first, then capturing `pageshow` listeners), and native answers what it
    // calls then. So the calls are taken when the restore begins (`thaw`, from this bridge's own
    // capturing listeners, added before any page script's) and settled at `pageshow`.
    var leftPersisted = false;   // a trusted pagehide (persisted): the page may be restored later
    var thawed = null;           // {calls, nativeCalls} taken when the restore began
    function isTrustedEvent(event) { return !!event && event.isTrusted === true; }
    function onPageHide(event) {
      if (isTrustedEvent(event) && event.persisted === true) { leftPersisted = true; }
    }
    /** Takes the calls native gave up on: those pending when the restore began. */
    function thaw() {
      if (thawed) { return; }
      var calls = [];
      mapForEach(pending, function (entry) { arrayPush(calls, entry); });
      thawed = { calls: calls, nativeCalls: nativeCalls };
      nativeCalls = new M();
    }
    function onVisibilityChange(event) {
      if (!leftPersisted || !isTrustedEvent(event)) { return; }
      var visible = false;
      try { visible = win.document.visibilityState === 'visible'; } catch (e) { visible = false; }
      if (visible) { leftPersisted = false; thaw(); }
    }
    function onPageShow(event) {
      if (!isTrustedEvent(event) || event.persisted !== true) { return; }
      leftPersisted = false;
      thaw();
      var taken = thawed;
      thawed = null;
      arrayForEach(taken.calls, function (entry) {
        var id = entry.id;
        settle(entry, failure('navigated', 'The page was restored from the back-forward cache'));
        // In mock mode the shim is native: its mock learns that the call ended, as a cancel tells it.
        if (id !== null && entry.done) { cancelMock(id); }
      });
      // Their handlers are told (signal aborted), and their answers are not sent
      // (finishNativeCall finds no entry).
      mapForEach(taken.nativeCalls, function (controller) {
        try { controller.abort(); } catch (err) { report(err); }
      });
    }
    function onPopState() { historyNotice('popstate'); }
    /**
     * Adds the bridge's listeners to the window. Adding them again adds nothing (the same
     * functions), so this runs whenever they may have been erased: `document.open()`, also run by
     * `document.write()` on a loaded document, erases the page world's listeners on the window
     * (HTML, "document open steps"), which would leave every call's reply undelivered.
     */
    function listen() {
      var add = function (type, fn, capture) { apply(winAddEventListener, win, [type, fn, !!capture]); };
      add(channel + ':ready', onReady);
      add(channel + ':message', onMessage);
      add('DOMContentLoaded', flush);
      add('load', onLoad);
      add('pagehide', onPageHide, true);
      add('visibilitychange', onVisibilityChange, true);
      add('pageshow', onPageShow, true);
      if (historyInstalled) { add('popstate', onPopState); }
    }
    /** Runs `listen` again after `document.open()`: it replaces the document's children, which a
     *  mutation observer sees (observers, unlike event listeners, survive it). */
    function relistenAfterDocumentOpen() {
      if (!winMutationObserver) { return; }
      try {
        var observer = new winMutationObserver(function () { listen(); });
        observer.observe(win.document, { childList: true });
      } catch (e) { /* no DOM to observe: nothing can erase the listeners either */ }
    }

    var hasDocument = false;
    try { hasDocument = !!(win && win.document); } catch (e) { hasDocument = false; }
    if (win && winAddEventListener) {
      listen();
      relistenAfterDocumentOpen();
      try { loaded = hasDocument && win.document.readyState === 'complete'; } catch (e) { loaded = false; }
      if (opts.history) { installHistory(); }
      try { dispatch(channel + ':hello', VERSION); } catch (e) { /* no relay possible without CustomEvent */ }
    }
    if (!hasDocument) {
      // No document (node, a worker): no load event will ever come, so once the current turn is
      // over (a call made just before mock() still reaches the mocks, as before a page's load),
      // a call that finds no transport and no mocks settles "unavailable" instead of waiting forever.
      soon(function () { loaded = true; flush(); });
    }
    return bridge;
  }

  /** Installs one bridge as `win.WebBridge`; a second install returns the first bridge unchanged. */
  function install(win, opts) {
    opts = opts || {};
    var existing = null;
    try { existing = win.WebBridge; } catch (e) { existing = null; }
    if (isBridge(existing)) {
      // Evaluated again in the same window: WebKit runs document-start scripts again when
      // `document.open()` erased the window's listeners; the bridge adds its own back.
      if (typeof existing._listen === 'function') { try { existing._listen(); } catch (e) { /* a foreign bridge */ } }
      return existing;
    }
    var bridge = createWebBridge({ window: win, transport: opts.transport, channel: opts.channel,
      history: opts.history !== false });
    try {
      defineProperty(win, 'WebBridge', { value: bridge, writable: false, enumerable: false, configurable: true });
    } catch (e) {
      try { win.WebBridge = bridge; } catch (e2) { /* the page froze the name; the bridge still works via return */ }
    }
    return bridge;
  }

  return { createWebBridge: createWebBridge, install: install, WebBridgeError: WebBridgeError,
    version: VERSION, isWindowLike: isWindowLike };
});
