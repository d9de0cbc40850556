// Type declarations for js/webbridge.js, the page side of the BridgeKit wire protocol v1
// (docs/protocol.md). As a classic script the file installs `window.WebBridge`; as a CommonJS
// module (require/import) it exports the functions below, and installs `window.WebBridge` too
// where a window-like global exists (a bundle in a browser, jsdom), keeping a bridge already there.
// `WebBridge` is declared both as a global (`WebBridge.call(...)`) and as `window.WebBridge`.

/** Any value JSON can carry. `undefined` options are sent as `null`. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/**
 * Stable error codes of protocol v1. Tasks may use their own codes too, hence `string`.
 * Produced by the shim: invalid_message, invalid_options, invalid_result, cancelled, timeout,
 * too_many_pending_calls, unavailable, task_failed, unknown_task (for native->page calls).
 */
export type WebBridgeErrorCode =
  | 'unknown_task' | 'invalid_message' | 'invalid_options' | 'invalid_result' | 'task_failed'
  | 'cancelled' | 'timeout' | 'forbidden' | 'payload_too_large' | 'nesting_too_deep'
  | 'too_many_pending_calls' | 'progress_limit_exceeded' | 'memory_budget_exceeded' | 'navigated' | 'unavailable'
  | (string & {});

/** The error part of a failed reply. `details` is `null` when the reply carried none. */
export interface WebBridgeErrorInfo {
  code: WebBridgeErrorCode;
  message: string;
  details: unknown;
}

/** What a callback-form call receives, exactly once. */
export type WebBridgeReply<T = unknown> =
  | { ok: true; data: T }
  | { ok: false; error: WebBridgeErrorInfo };

/** The error a promise-form call rejects with. */
export declare class WebBridgeError extends Error {
  constructor(code: WebBridgeErrorCode, message?: string, details?: unknown);
  readonly name: 'WebBridgeError';
  /** Stable error code, for example "timeout" or "unknown_task". */
  code: WebBridgeErrorCode;
  /** Extra JSON data from the failing side, or null. */
  details: unknown;
}

/** Per-call settings (third argument of `call`); `P` is the type of the task's progress data. */
export interface WebBridgeCallSettings<T = unknown, P = unknown> {
  /**
   * Milliseconds before the call settles with code "timeout" and a cancel is posted; 0, Infinity
   * or null: none. Anything else that is not a number of milliseconds fails the call "invalid_message".
   */
  timeout?: number | null;
  /**
   * Aborting settles the call with code "cancelled" ("timeout" when the signal timed out, as
   * `AbortSignal.timeout(ms)` does) and posts a cancel (an aborted signal posts nothing).
   */
  signal?: AbortSignal | null;
  /**
   * Runs for each non-final progress message of this call, in order, before the call settles.
   * With `binary: "bytes"` (the default), a value with binary values runs once their bytes were
   * read, and the values after it and the call's reply wait for it.
   */
  onProgress?: (data: P) => void;
  /**
   * Binary values in the options (ArrayBuffer, typed arrays, DataView, Blob, File) travel through
   * the byte transport; runs when each has been sent, with the bytes sent so far and in all.
   */
  onUploadProgress?: (progress: { loaded: number; total: number }) => void;
  /**
   * Binary values in the reply (or a progress value) arrive as `Uint8Array` (or as streams with
   * `binary: "stream"`); runs for each chunk read, with the bytes read so far and in all over the
   * values of that message (`total` null when a size is unknown). With streams it runs as the page
   * reads them, also after the call settled.
   */
  onDownloadProgress?: (progress: { loaded: number; total: number | null }) => void;
  /**
   * How binary values of the result and its progress reach the page: `"bytes"` (the default), each a
   * `Uint8Array`, and the call settles once all were read; `"stream"`, each a
   * {@link WebBridgeBinaryStream}, and the call settles at once, its bytes fetched as the page
   * reads the stream. Events always carry `Uint8Array`. Any other value fails the call with
   * "invalid_message".
   */
  binary?: 'bytes' | 'stream';
  /** Callback form: runs exactly once with the reply; `call` then returns undefined. */
  callback?: (reply: WebBridgeReply<T>) => void;
}

/**
 * A binary value of a call made with `binary: "stream"` (docs/protocol.md, "Binary values"). The
 * bytes are fetched from the byte transport only as `stream` is read, one chunk per read (a mock's
 * bytes in chunks of 64 KiB), so the page never holds the value whole. The stream ends exactly once:
 * it closes after exactly `size` bytes (any count when `size` is null); it errors with a
 * `WebBridgeError`, code "invalid_result" (the body is shorter or longer than `size`), "cancelled"
 * (the call's `signal` aborted, also after the call settled), "unavailable" (native ended it, the
 * web view closed, the transport failed) or native's refusal ("navigated", "unknown_transfer" once
 * it was never read for 60 s, ...); or the reader cancels it, which aborts the download, so the
 * native task sees its stream cancelled. The call's `timeout` ends with its reply.
 */
export interface WebBridgeBinaryStream {
  /** The bytes, in chunks as the transport delivers them. Can be read once. */
  readonly stream: ReadableStream<Uint8Array>;
  /** The byte count native announced, or null when native streams bytes of unknown length. */
  readonly size: number | null;
  /** The MIME type native gave, or null. */
  readonly type: string | null;
}

/** Second argument of a page handler. */
export interface WebBridgeHandlerContext {
  /** Aborted when native cancels the call (a reply is then no longer needed). */
  signal: AbortSignal;
}

/**
 * Handler for native->page calls. Throw or reject to fail: a string `code` on the thrown object is used, else "task_failed".
 * The answer must be JSON: one holding binary values (Uint8Array, Blob, …) fails "invalid_result".
 * `O` is the type the page expects native's options to have (not checked at run time: they are JSON).
 */
export type WebBridgeHandler<O = unknown> = (options: O, context: WebBridgeHandlerContext) => unknown | Promise<unknown>;

/** Second argument of a mock task (`WebBridge.mock`), like a native task's call context. */
export interface WebBridgeMockContext {
  /** Aborted when the call is cancelled (its AbortSignal, its timeout); a later answer is ignored. */
  signal: AbortSignal;
  /** Sends one progress message to the call's `onProgress`, as a native task does; returns false once the call has settled. */
  progress(data: unknown): boolean;
}

/**
 * A mock task: answers like a native task. Return (or resolve with) the reply data; throw (or
 * reject with) `{code, message, details}` or a WebBridgeError to fail with that code, anything
 * else fails with "task_failed". Binary values in the options arrive as the page gave them
 * (ArrayBuffer, typed array, DataView, Blob); bytes in the answer or its progress reach the page
 * as a Uint8Array, as from native (or as a WebBridgeBinaryStream for a call with `binary: "stream"`).
 */
export type WebBridgeMock = (options: any, context: WebBridgeMockContext) => unknown | Promise<unknown>;

/** The tasks the app offers: task name -> the version the task declares, or null. */
export type WebBridgeTaskList = { [task: string]: string | null };

/** The page-side bridge (`window.WebBridge`, also the global `WebBridge`). */
export interface WebBridge {
  /** Protocol version, "1". */
  readonly version: '1';
  /** Callback form with no options: the callback runs exactly once; returns undefined and never throws. */
  call<T = unknown>(task: string, callback: (reply: WebBridgeReply<T>) => void): undefined;
  /** Callback form: the callback runs exactly once; returns undefined and never throws. */
  call<T = unknown>(task: string, options: unknown, callback: (reply: WebBridgeReply<T>) => void): undefined;
  call<T = unknown, P = unknown>(task: string, options: unknown, settings: WebBridgeCallSettings<T, P> & { callback: (reply: WebBridgeReply<T>) => void }): undefined;
  /**
   * Calls a native task; resolves with the reply data or rejects with a WebBridgeError. Never throws.
   * `options` may be any JSON value (type preserved); undefined is sent as null.
   */
  call<T = unknown, P = unknown>(task: string, options?: unknown, settings?: Omit<WebBridgeCallSettings<T, P>, 'callback'>): Promise<T>;
  /**
   * Fire-and-forget call (no id, no reply). Returns whether it was sent or queued. Never throws.
   * Binary values (ArrayBuffer, typed arrays, DataView, Blob) cannot travel without a reply: options
   * holding one are not sent (false); use `call`.
   */
  notify(task: string, options?: unknown): boolean;
  /**
   * Listens to a native event; the same function is registered once (it runs once per event).
   * Returns a function that ends this subscription: the listener stays until every function `on`
   * returned for it was called (or `off` removed it); each works once and never removes a later
   * registration. The app's `Data` in an event arrives as a `Uint8Array` (with the app's byte
   * transport attached; else base64 text); listeners get events in the order the app sent them,
   * an event with bytes holding what the app sent after it (events, replies, progress) until its
   * bytes were read.
   */
  on<T = unknown>(name: string, listener: (data: T) => void): () => void;
  /** Removes one listener, or every listener of `name` when `listener` is omitted. */
  off<T = unknown>(name: string, listener?: (data: T) => void): void;
  /** Registers (or replaces) the handler for native->page calls of `name`; `null` removes it. */
  handle<O = unknown>(name: string, handler: WebBridgeHandler<O> | null): void;
  /**
   * Whether the app offers `task` (and, with `minimumVersion`, declares that version or a later
   * one; dotted parts compare numerically). False when the host never sent its task list. In mock
   * mode: whether a mock of that name is installed.
   */
  supports(task: string, minimumVersion?: string | number): boolean;
  /**
   * The tasks the app offers (a fresh object, names sorted), as the host injected them at document
   * start and updated since; null when the host sent no list. In mock mode: the mocks (versions null).
   */
  tasks(): WebBridgeTaskList | null;
  /**
   * Mock mode, for a normal browser: answers calls with these functions instead of native tasks
   * (null removes one). Engages only when there is no native channel: with one (WebKit message
   * handler, relay, injected transport) it installs nothing and returns false. Calls to a task
   * without a mock get "unknown_task"; `notify` runs mocks fire-and-forget. Throws TypeError for
   * a value that is neither a function nor null.
   */
  mock(mocks: { [task: string]: WebBridgeMock | null }): boolean;
  /**
   * Mock mode, native's side: sends the page's `on(name, …)` listeners an event as the app's
   * `emit` does (later; `data` as JSON gives it). Engages mock mode as `mock({})` would. Returns
   * false, sending nothing, when a native channel exists. Throws TypeError for an empty name or
   * data JSON cannot carry.
   */
  mockEmit(name: string, data?: unknown): boolean;
  /**
   * Mock mode, native's side: calls the page's `handle(handler, …)` handler as the app's
   * `callPage` does. Resolves with its answer as JSON gives it; rejects with a WebBridgeError:
   * the handler's code, "unknown_task" (no such handler), "timeout" after `settings.timeout` ms
   * (default 30000; the handler's signal aborts, as native's cancel makes it), "unavailable" when
   * a native channel exists. Engages mock mode as `mock({})` would.
   */
  mockCallPage<T = unknown>(handler: string, options?: unknown, settings?: { timeout?: number }): Promise<T>;
  /** Number of page calls waiting for their final reply (diagnostics and tests). */
  pendingCount(): number;
  /** The error class used by this bridge. */
  readonly WebBridgeError: typeof WebBridgeError;
  /** Entry point for native->page messages (object or JSON text). Ignores malformed input; never throws. */
  _receive(message: unknown): void;
  /**
   * Adds the bridge's window listeners back (adding them again adds nothing). The shim calls it
   * itself after `document.open()` erased them; pages never need to.
   */
  _listen(): void;
  /** Sizes of internal tables (tests and diagnostics only). */
  _sizes(): { pending: number; queued: number; listeners: number; handlers: number; nativeCalls: number; earlyCancels: number; mockCalls: number };
}

/** Transport for custom hosts and tests. A returned Promise may resolve to a native->page message. */
export interface WebBridgeTransport {
  post(text: string): void | Promise<string | object | null | undefined>;
}

/** The subset of `window` the shim uses (injectable for tests). */
export interface WebBridgeWindowLike {
  addEventListener(type: string, listener: (event: any) => void, options?: unknown): void;
  dispatchEvent(event: Event): boolean;
  document?: { readyState?: string };
  location?: { href: string; origin?: string };
  history?: { pushState(...args: any[]): unknown; replaceState(...args: any[]): unknown };
  webkit?: { messageHandlers?: Record<string, { postMessage(body: unknown): unknown } | undefined> };
  CustomEvent?: typeof CustomEvent;
  AbortController?: typeof AbortController;
  crypto?: { getRandomValues<T extends ArrayBufferView | null>(array: T): T };
  console?: { error(...args: unknown[]): void };
  setTimeout?(fn: () => void, ms: number): unknown;
  clearTimeout?(handle: unknown): void;
  WebBridge?: WebBridge;
}

export interface CreateWebBridgeOptions {
  /** Window to listen on (relay events, load) and to find `webkit.messageHandlers` in. */
  window?: WebBridgeWindowLike | null;
  /** Injected transport; when given it is always used. */
  transport?: WebBridgeTransport | null;
  /** Message handler name and relay event prefix. Default "webbridge". */
  channel?: string;
  /** Wrap history.pushState/replaceState and listen for popstate. Default false here. */
  history?: boolean;
}

export interface InstallOptions {
  transport?: WebBridgeTransport | null;
  channel?: string;
  /** Default true. */
  history?: boolean;
}

/** Creates an independent bridge (does not touch `window.WebBridge`). */
export declare function createWebBridge(options?: CreateWebBridgeOptions): WebBridge;
/** Installs `win.WebBridge` once; later calls return the installed bridge unchanged. */
export declare function install(win: WebBridgeWindowLike, options?: InstallOptions): WebBridge;
/** Protocol version, "1". */
export declare const version: '1';

/** Aliases for the global declarations below (a page script has no `import`). */
type WebBridgeErrorInstance = WebBridgeError;
type WebBridgeBinaryStreamValue = WebBridgeBinaryStream;
type WebBridgeReplyValue<T> = WebBridgeReply<T>;
type WebBridgeErrorCodeValue = WebBridgeErrorCode;

declare global {
  /**
   * The types a classic page script needs, without an import (a script that uses the global
   * `WebBridge` through `/// <reference types="bridgekit-webbridge" />`): `catch (e) { const err = e as WebBridgeError; }`.
   */
  type WebBridgeError = WebBridgeErrorInstance;
  type WebBridgeBinaryStream = WebBridgeBinaryStreamValue;
  type WebBridgeReply<T = unknown> = WebBridgeReplyValue<T>;
  type WebBridgeErrorCode = WebBridgeErrorCodeValue;
  interface Window {
    readonly WebBridge: WebBridge;
  }
  /** The bridge the shim installs as a classic script (same object as `window.WebBridge`). */
  var WebBridge: WebBridge;
}
