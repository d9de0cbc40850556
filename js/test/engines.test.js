'use strict';
// The shim and relay in JavaScriptCore itself (WebKitGTK's engine), when the jsc shell is installed
// (Debian: libjavascriptcoregtk-4.0-bin). Node covers everything else; this catches engine gaps.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { SHIM_PATH, RELAY_PATH } = require('../testing/fakes.js');

const hasJsc = spawnSync('jsc', ['-e', 'print(1)'], { encoding: 'utf8' }).stdout === '1\n';

test('JavaScriptCore runs the relay handshake, calls, events, native calls and history notices', { skip: !hasJsc && 'jsc shell not installed' }, () => {
  const script = path.join(__dirname, '..', 'testing', 'jsc-smoke.js');
  const r = spawnSync('jsc', [script, '--', SHIM_PATH, RELAY_PATH], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout.trim().split('\n').pop());
  const log = result.log;
  assert.deepEqual(log.filter((l) => l.startsWith('native got call echo')).length, 2, 'relay installed once, shim once');
  assert.ok(log.includes('native got cancel undefined mainFrame=true origin=https://app.example'));
  assert.ok(log.includes('event {"count":3}'));
  assert.ok(log.includes('native got reply undefined mainFrame=true origin=https://app.example'));
  assert.ok(log.includes('native got call History mainFrame=true origin=https://app.example'));
  assert.ok(log.includes('callback {"ok":true,"data":{"echo":"plain"}}'));
  assert.ok(log.includes('aborted cancelled true true'));
  assert.ok(log.includes('promise ' + JSON.stringify({ echo: { text: "it's\n\u2028\"x\"", n: 0, f: false } })));
  assert.ok(!log.some((l) => l.startsWith('console.error')), log.join('\n'));
  assert.equal(result.pending, 0);
  assert.equal(result.sameObject, true);
});
