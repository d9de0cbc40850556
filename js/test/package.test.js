'use strict';
// js/package.json: `npm install <path>` and bundlers find the shim, its types and the other scripts
// through `exports`; the published files are the shipped scripts only. Uses npm offline.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const JS_DIR = path.join(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(JS_DIR, 'package.json'), 'utf8'));
const hasNpm = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;

test('package.json names existing files in main, types and exports, and has no dependencies', () => {
  assert.equal(pkg.main, './webbridge.js');
  assert.equal(pkg.types, './webbridge.d.ts');
  assert.deepEqual(pkg.exports['.'], { types: './webbridge.d.ts', default: './webbridge.js' });
  const targets = [pkg.main, pkg.types, pkg.exports['./relay'], pkg.exports['./document-notice']];
  for (const target of targets) { assert.ok(fs.existsSync(path.join(JS_DIR, target)), target); }
  for (const key of ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies']) {
    assert.equal(pkg[key], undefined, key);
  }
});

test('npm pack --dry-run packs exactly the shipped scripts and the types', { skip: !hasNpm && 'npm not installed' }, () => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--offline'], { cwd: JS_DIR, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const files = JSON.parse(r.stdout)[0].files.map((f) => f.path).sort();
  assert.deepEqual(files, ['package.json', 'webbridge-document.js', 'webbridge-relay.js', 'webbridge.d.ts', 'webbridge.js']);
});

test('npm install <path> works offline; require and import resolve through exports', { skip: !hasNpm && 'npm not installed' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webbridge-pkg-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"consumer","version":"1.0.0","private":true}');
    const r = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', JS_DIR], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const script = [
      "const shim = require('bridgekit-webbridge');",
      "const relay = require('bridgekit-webbridge/relay');",
      "const resolved = require.resolve('bridgekit-webbridge');",
      "import('bridgekit-webbridge').then((esm) => {",
      "  const b = shim.createWebBridge({ transport: { post() {} } });",
      "  console.log(JSON.stringify({ version: shim.version, relay: typeof relay.createRelay, esm: typeof esm.createWebBridge,",
      "    same: esm.createWebBridge === shim.createWebBridge, supports: typeof b.supports, file: require('path').basename(resolved) }));",
      '});',
    ].join('\n');
    const run = spawnSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { version: '1', relay: 'function', esm: 'function', same: true, supports: 'function', file: 'webbridge.js' });
    if (spawnSync('tsc', ['--version']).status === 0) {
      // What the README tells a TypeScript page to do: the package's types, global WebBridge included.
      fs.writeFileSync(path.join(dir, 'page.ts'), '/// <reference types="bridgekit-webbridge" />\n' +
        "const ok: boolean = WebBridge.supports('Scan'); WebBridge.call<number>('x').then((n) => n + 1); void ok;\n");
      const tsc = spawnSync('tsc', ['--noEmit', '--strict', '--target', 'es2017', '--lib', 'es2017,dom', 'page.ts'], { cwd: dir, encoding: 'utf8' });
      assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    }
    const hidden = spawnSync(process.execPath, ['-e', "require('bridgekit-webbridge/test/call.test.js')"], { cwd: dir, encoding: 'utf8' });
    assert.notEqual(hidden.status, 0, 'files outside exports are not importable');
    assert.match(hidden.stderr, /ERR_PACKAGE_PATH_NOT_EXPORTED/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
