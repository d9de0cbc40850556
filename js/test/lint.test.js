'use strict';
// Static checks of the shipped scripts: they parse, stay ES2017 (WebKitGTK 2.50, Safari 15+), never
// turn data into code, and the TypeScript declarations cover the runtime API.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { loadShim, recordingTransport, SHIM_PATH, RELAY_PATH } = require('../testing/fakes.js');

const JS_DIR = path.join(__dirname, '..');
const SHIPPED = [SHIM_PATH, RELAY_PATH, path.join(__dirname, '..', 'webbridge-document.js')];
const DTS_PATH = path.join(JS_DIR, 'webbridge.d.ts');
const ACORN = '/usr/share/nodejs/acorn';

function allJsFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { return allJsFiles(p); }
    return e.name.endsWith('.js') ? [p] : [];
  });
}

/** Source with comments removed and string contents blanked (the shipped files have no regex literals). */
function codeOnly(source) {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') { i++; }
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === '"' || c === "'") {
      out += c;
      i++;
      while (i < source.length && source[i] !== c) { i += source[i] === '\\' ? 2 : 1; }
      out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

test('node --check passes for every js file (shipped, tests, helpers)', () => {
  const files = allJsFiles(JS_DIR);
  assert.ok(files.length >= 10);
  for (const file of files) {
    const r = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
    assert.equal(r.status, 0, file + ': ' + r.stderr);
  }
});

test('shipped scripts never turn data into code: no eval, Function constructor, template literals or string timers', () => {
  for (const file of SHIPPED) {
    const source = fs.readFileSync(file, 'utf8');
    const code = codeOnly(source);
    assert.ok(!code.includes('`'), file + ' contains a template literal');
    assert.doesNotMatch(code, /\beval\b/, file);
    assert.doesNotMatch(code, /\bFunction\s*\(/, file);
    assert.doesNotMatch(code, /new\s+Function\b/, file);
    assert.doesNotMatch(code, /setTimeout\(\s*['"]/, file);
    assert.doesNotMatch(code, /\b(innerHTML|outerHTML|document\.write|insertAdjacentHTML)\b/, file);
    assert.doesNotMatch(code, /\bString\(\s*(options|data|value|message)\s*\)/, file + ': String(x) on data (R15)');
  }
});

test('the lint helper itself can fail: it sees code and ignores strings and comments', () => {
  assert.match(codeOnly('var a = eval(x);'), /\beval\b/);
  assert.doesNotMatch(codeOnly("var a = 'eval(x)'; // eval(y)\n/* eval(z) */"), /\beval\b/);
  assert.match(codeOnly('a?.b'), /\?\./);
  assert.ok(codeOnly('var t = `x${y}`;').includes('`'));
});

test('shipped scripts use no syntax or built-ins newer than ES2017', () => {
  const forbidden = [
    [/\?\.(?!\d)/, 'optional chaining (ES2020)'], [/\?\?/, 'nullish coalescing (ES2020)'],
    [/\.\.\./, 'spread/rest (object spread is ES2018; avoided entirely)'], [/catch\s*\{/, 'optional catch binding (ES2019)'],
    [/\bfor\s+await\b/, 'async iteration (ES2018)'], [/#[A-Za-z_]/, 'private fields (ES2022)'],
    [/\bglobalThis\b/, 'globalThis (ES2020)'], [/\.finally\(/, 'Promise.prototype.finally (ES2018)'],
    [/\.(flat|flatMap|at|matchAll|replaceAll|fromEntries|allSettled|any|hasOwn)\(/, 'ES2019+ method'],
    [/\bstructuredClone\b|\bqueueMicrotask\b|\bWeakRef\b/, 'newer global'], [/\bstatic\s+[A-Za-z_$]+\s*=/, 'class fields'],
    [/\d_\d/, 'numeric separators (ES2021)'], [/\basync\s+function\s*\*/, 'async generators (ES2018)'],
  ];
  for (const file of SHIPPED) {
    const code = codeOnly(fs.readFileSync(file, 'utf8'));
    for (const [pattern, what] of forbidden) { assert.doesNotMatch(code, pattern, file + ': ' + what); }
  }
});

test('shipped scripts parse as ES2017 scripts (acorn, when installed)', { skip: !fs.existsSync(ACORN) && 'node-acorn not installed' }, () => {
  const acorn = require(ACORN);
  for (const file of SHIPPED) {
    assert.doesNotThrow(() => acorn.parse(fs.readFileSync(file, 'utf8'), { ecmaVersion: 2017, sourceType: 'script' }), file);
  }
  assert.throws(() => acorn.parse('a?.b', { ecmaVersion: 2017 }), 'the parser rejects ES2020 at this level');
});

test('webbridge.d.ts declares every runtime member and export', () => {
  const dts = fs.readFileSync(DTS_PATH, 'utf8');
  const api = loadShim();
  const bridge = api.createWebBridge({ transport: recordingTransport() });
  for (const key of Object.keys(bridge)) {
    assert.match(dts, new RegExp('\\n\\s+(readonly\\s+)?' + key + '[(<:]'), 'WebBridge.' + key + ' is not declared');
  }
  for (const key of Object.keys(api)) {
    assert.match(dts, new RegExp('export declare (function|class|const) ' + key + '\\b'), 'export ' + key + ' is not declared');
  }
});

test('webbridge.d.ts type-checks with a usage sample (tsc, when installed)', { skip: spawnSync('tsc', ['--version']).status !== 0 && 'tsc not installed' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webbridge-dts-'));
  try {
    fs.copyFileSync(DTS_PATH, path.join(dir, 'webbridge.d.ts'));
    fs.writeFileSync(path.join(dir, 'usage.ts'), [
      "import { createWebBridge, install, WebBridgeError, WebBridge } from './webbridge';",
      'const b: WebBridge = createWebBridge({ transport: { post(t: string) { return Promise.resolve(null); } } });',
      'async function f(): Promise<void> {',
      "  const n: number = await b.call<number>('double', 21, { timeout: 100, signal: new AbortController().signal, onProgress: (d) => {} });",
      "  const r: undefined = b.call('x', 1, (reply) => { if (!reply.ok) { const c: string = reply.error.code; } });",
      "  b.call('x', (reply) => {}); b.call('x', null, { callback: (reply) => {}, timeout: 5 });",
      "  b.on('e', (d) => {})(); b.handle('h', async (o, { signal }) => signal.aborted); b.handle('h', null);",
      "  try { await b.call('y'); } catch (e) { if (e instanceof WebBridgeError) { const c: string = e.code; } }",
      "  window.WebBridge.notify('t', 1); install(window); void n; void r;",
      '}',
      'void f;',
    ].join('\n'));
    const r = spawnSync('tsc', ['--noEmit', '--strict', '--target', 'es2017', '--lib', 'es2017,dom', 'usage.ts'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The js block of README.md's "Example" section. */
function readmeSnippet() {
  const readme = fs.readFileSync(path.join(JS_DIR, '..', 'README.md'), 'utf8');
  const example = readme.slice(readme.indexOf('\n## Example'));
  const match = /```js\n([\s\S]*?)```/.exec(example);
  assert.ok(match, 'README.md "Example" has a js block');
  return match[1];
}

/** Type-checks `source` as a page script next to webbridge.d.ts; returns tsc's status and output. */
function tscPage(source, dts) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webbridge-readme-'));
  try {
    fs.writeFileSync(path.join(dir, 'webbridge.d.ts'), dts);
    // The page's own function the snippet calls; `export {}` makes the file a module, where the
    // snippet's top-level await is allowed (a <script type="module">).
    fs.writeFileSync(path.join(dir, 'page.ts'), 'declare function render(data: unknown): void;\ndeclare function showScanButton(): void;\n' + source + '\nexport {};\n');
    const r = spawnSync('tsc', ['--noEmit', '--strict', '--target', 'es2017', '--module', 'es2022', '--lib', 'es2017,dom',
      'webbridge.d.ts', 'page.ts'], { cwd: dir, encoding: 'utf8' });
    return { status: r.status, output: r.stdout + r.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('the README\'s page snippet type-checks against webbridge.d.ts with the global WebBridge (tsc, when installed)', { skip: spawnSync('tsc', ['--version']).status !== 0 && 'tsc not installed' }, () => {
  const dts = fs.readFileSync(DTS_PATH, 'utf8');
  const snippet = readmeSnippet();
  assert.match(snippet, /(^|[^.\w])WebBridge\.call\(/, 'the snippet uses the bare global');
  const ok = tscPage(snippet + [
    "const offered: boolean = WebBridge.supports('Greet') && window.WebBridge.supports('Greet', '2');",
    "const list = WebBridge.tasks(); if (list) { const v: string | null = list['Greet']; void v; }",
    "const mocked: boolean = WebBridge.mock({ Greet: (o: { name: string }, { signal, progress }) => { progress(1); return signal.aborted ? null : 'Hi ' + o.name; }, Old: null });",
    'void offered; void mocked;',
  ].join('\n'), dts);
  assert.equal(ok.status, 0, ok.output);
  // The check can fail: without the global declaration the bare name is TS2304, and a misuse is caught.
  const withoutGlobal = tscPage(snippet, dts.replace(/\n\s*\/\*\*[^\n]*\*\/\n\s*var WebBridge: WebBridge;/, ''));
  assert.notEqual(withoutGlobal.status, 0);
  assert.match(withoutGlobal.output, /TS2304/);
  const misuse = tscPage("WebBridge.supports(42);\nWebBridge.mock({ X: 'not a function' });", dts);
  assert.notEqual(misuse.status, 0);
  assert.match(misuse.output, /TS2345|TS2322/);
});

test('a classic page script (no import) names the error and stream types and types its listeners and handlers (tsc, when installed)', { skip: spawnSync('tsc', ['--version']).status !== 0 && 'tsc not installed' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webbridge-classic-'));
  try {
    fs.copyFileSync(DTS_PATH, path.join(dir, 'webbridge.d.ts'));
    // No import/export: a <script> page that uses the global WebBridge, as README.md says.
    fs.writeFileSync(path.join(dir, 'page.ts'), [
      '/// <reference path="webbridge.d.ts" />',
      'type Cart = { count: number };',
      "WebBridge.on('cart.updated', (cart: Cart) => cart.count.toFixed());",
      "WebBridge.off('cart.updated', (cart: Cart) => {});",
      "WebBridge.on<Cart>('cart.updated', (cart) => cart.count.toFixed());",
      "WebBridge.handle('page.title', (o: { format: string }) => o.format.toUpperCase());",
      "WebBridge.call('x').catch((e: WebBridgeError) => { const c: WebBridgeErrorCode = e.code; void c; });",
      "WebBridge.call<{ file: WebBridgeBinaryStream }>('File.open', {}, { binary: 'stream' }).then((r) => r.file.stream.getReader());",
      "const reply: WebBridgeReply<Cart> = { ok: true, data: { count: 1 } }; void reply;",
    ].join('\n'));
    const r = spawnSync('tsc', ['--noEmit', '--strict', '--target', 'es2017', '--lib', 'es2017,dom', 'page.ts'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
