'use strict';
// Kind of fault: a large body with a handful of characters above U+00FF crosses to the app as a
// two-byte-per-character string (JavaScriptCore's form for such a string), doubling its copies in
// both processes; or the relay's narrowed form changes the message, or blows up text that is
// mostly non-Latin.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadShim, loadRelay, makeWorlds } = require('../testing/fakes.js');

const { install } = loadShim();
const { createRelay } = loadRelay();

/** A relay world with the encoders a WebKit world has, and a page bridge posting through it. */
function setUp({ encoders = true, decoderOnly = false } = {}) {
  const { page, relay, handler } = makeWorlds();
  if (encoders && !decoderOnly) { relay.TextEncoder = TextEncoder; }
  if (encoders) { relay.TextDecoder = TextDecoder; }
  createRelay({ window: relay });
  return { bridge: install(page), handler };
}

const isASCII = (text) => /^[\x00-\x7f]*$/.test(text);

test('a large body with a few wide characters: ASCII escapes, the same message', () => {
  const { bridge, handler } = setUp();
  const options = { file: 'QUJD'.repeat(40000), note: 'done ✓ 😀 \u2028', name: 'Grüße' };
  bridge.call('upload', options, () => {});
  const posted = handler.messages[0][2];
  assert.ok(isASCII(posted), 'every non-ASCII character escaped');
  assert.ok(posted.includes('\\u2713') && posted.includes('\\ud83d\\ude00') && posted.includes('Gr\\u00fc\\u00dfe'));
  const message = JSON.parse(posted);
  assert.deepEqual(message.options, options);
  assert.equal(message.task, 'upload');
});

test('unchanged: small bodies, bodies without characters above U+00FF, mostly non-Latin text, no TextEncoder', () => {
  const cases = [
    { options: { text: 'small ✓' }, encoders: true },
    { options: { text: 'é'.repeat(70000) }, encoders: true },
    { options: { text: '漢字かな'.repeat(20000) }, encoders: true },
    { options: { text: 'a'.repeat(70000) + '✓' }, encoders: false },
  ];
  for (const { options, encoders } of cases) {
    const { bridge, handler } = setUp({ encoders });
    bridge.call('t', options, () => {});
    const posted = handler.messages[0][2];
    assert.deepEqual(JSON.parse(posted).options, options);
    assert.ok(!posted.includes('\\u'), 'no escapes added');
  }
});

test('at most one wide-or-non-ASCII character in 16: narrowed; one more: unchanged', () => {
  // The body's length in UTF-16 units sets the limit; pad to a known length.
  const { bridge, handler } = setUp();
  const wide = '✓'.repeat(4000);
  bridge.call('t', { text: wide + 'a'.repeat(4000 * 16) }, () => {});
  assert.ok(isASCII(handler.messages[0][2]));
  const second = setUp();
  second.bridge.call('t', { text: wide + 'a'.repeat(4000 * 14) }, () => {});
  assert.ok(!isASCII(second.handler.messages[0][2]));
});

test('one threshold: a body of 65,535 UTF-16 units goes as one string, unchanged; of 65,536 as an array, narrowed', () => {
  for (const [units, large] of [[65535, false], [65536, true]]) {
    const { bridge, handler } = setUp();
    // The envelope's length around a one-unit text, measured with a first call of the same bridge.
    bridge.call('t', { text: '✓' }, () => {});
    const overhead = handler.messages[0][2].length - 1;
    bridge.call('t', { text: '✓' + 'a'.repeat(units - overhead - 1) }, () => {});
    assert.equal(Array.isArray(handler.texts[1]), large, `${units} units`);
    const body = handler.messages[1][2];
    assert.equal(body.length, large ? units + 5 : units, 'the narrowed body writes ✓ as \\u2713');
    assert.equal(isASCII(body), large, `${units} units`);
  }
});

// Issue 25, third pass: the narrowing is one pass of the relay's own into a byte array and one
// TextDecoder call (a count, `replace` and `TextEncoder` on the two-byte string took about 2.5
// times as long in the web process: docs/performance.md, "The large rows (issue 25, third pass)").

test('narrowing needs TextDecoder only (one pass into bytes, no TextEncoder)', () => {
  const { bridge, handler } = setUp({ decoderOnly: true });
  const options = { file: 'QUJD'.repeat(20000), name: 'Grüße ✓' };
  bridge.call('t', options, () => {});
  const posted = handler.messages[0][2];
  assert.ok(isASCII(posted), 'narrowed without a TextEncoder');
  assert.deepEqual(JSON.parse(posted).options, options);
});

test('every non-ASCII code unit as a lowercase four-digit escape, surrogate halves one by one', () => {
  const { bridge, handler } = setUp({ decoderOnly: true });
  // U+0080 and U+00FF (one byte in Latin-1, escaped all the same), U+0100, U+0FFF (leading
  // zero), U+FFFF, a surrogate pair and ✓ as the last character of the body's last string.
  const tail = '\u0080\u00ff\u0100\u0fff\uffff😀✓';
  const options = { file: 'QUJD'.repeat(20000), tail };
  bridge.call('t', options, () => {});
  const posted = handler.messages[0][2];
  assert.ok(posted.endsWith('"tail":"\\u0080\\u00ff\\u0100\\u0fff\\uffff\\ud83d\\ude00\\u2713"}}'), posted.slice(-80));
  assert.deepEqual(JSON.parse(posted).options, options);
});

test('exactly one non-ASCII unit in 16: narrowed, the escapes fill the byte array to its end; one more: unchanged', () => {
  // The body's length in units, 80,000, allows 5,000 non-ASCII units; the text is padded to it
  // around an envelope measured with a first call.
  const units = 80000;
  for (const [wide, narrowed] of [[5000, true], [5001, false]]) {
    const { bridge, handler } = setUp({ decoderOnly: true });
    bridge.call('t', { text: '' }, () => {});
    const overhead = handler.messages[0][2].length;
    const text = 'a'.repeat(units - overhead - wide) + '✓'.repeat(wide);
    bridge.call('t', { text }, () => {});
    const posted = handler.messages[1][2];
    assert.equal(isASCII(posted), narrowed, `${wide} wide units`);
    assert.equal(posted.length, narrowed ? units + 5 * wide : units);
    assert.equal(JSON.parse(posted).options.text, text);
  }
});
