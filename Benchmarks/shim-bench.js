'use strict';
// Per-call cost of the page shim (js/webbridge.js) in node, against a bare postMessage stub.
//
// Both sides do the same surrounding work: the caller passes the same payload, the message is
// JSON.stringify'd, the stub transport JSON.parse's it and answers with the same data, either
// synchronously (inside post) or asynchronously (a resolved Promise). The difference is what the
// shim adds per call: ids, the pending map, timers and abort handling (unused here), settling.
//
//   node Benchmarks/shim-bench.js            full run (about a minute)
//   node Benchmarks/shim-bench.js --smoke    a fraction of a second; checks that it runs
//
// Prints a Markdown table in the format of bridgebench (see docs/performance.md).

const path = require('node:path');
const { createWebBridge } = require(path.join(__dirname, '..', 'js', 'webbridge.js'));

const smoke = process.argv.includes('--smoke');
const calls = smoke ? 200 : 50000;
const rounds = smoke ? 1 : 7;
const width = 64;

/** A payload like bridgebench's: a label and `count` small records. */
function payload(count, labelLength) {
  const records = [];
  for (let i = 0; i < count; i++) {
    records.push({ id: i, name: i % 10 === 0 ? 'Record ' + i + ' <b>"Grüße"</b> ✓' : 'Record number ' + i,
      score: (i % 1000) / 8, active: i % 3 === 0, tags: i % 2 === 0 ? ['alpha', 'beta'] : ['gamma'] });
  }
  return { label: 'x'.repeat(labelLength), records: records };
}

/** Bare: a page that posts `{id, data}` and resolves its own promise when the stub answers. */
function bare(async) {
  const pending = new Map();
  let seq = 0;
  function receive(m) {
    const resolve = pending.get(m.id);
    if (resolve) { pending.delete(m.id); resolve(m.data); }
  }
  const post = async
    ? (text) => { Promise.resolve().then(() => { const m = JSON.parse(text); receive({ id: m.id, data: m.data }); }); }
    : (text) => { const m = JSON.parse(text); receive({ id: m.id, data: m.data }); };
  return (data) => new Promise((resolve) => {
    const id = ++seq;
    pending.set(id, resolve);
    post(JSON.stringify({ id: id, data: data }));
  });
}

/** Shim: WebBridge.call through an injected transport that answers like native does. */
function shim(async) {
  let bridge = null;
  const answer = (text) => { const m = JSON.parse(text); return { v: 1, kind: 'reply', id: m.id, ok: true, data: m.options }; };
  const transport = async
    ? { post(text) { return Promise.resolve(answer(text)); } }
    : { post(text) { bridge._receive(answer(text)); } };
  bridge = createWebBridge({ transport: transport });
  return (data) => bridge.call('BenchEcho', data);
}

function check(sent, got) {
  if (!got || got.label !== sent.label || got.records.length !== sent.records.length) {
    throw new Error('the echo differs from the payload');
  }
}

/** Seconds per call for `count` calls, one at a time or `width` at a time. */
async function measure(call, data, count, inFlight) {
  const start = process.hrtime.bigint();
  if (inFlight <= 1) {
    for (let i = 0; i < count; i++) { check(data, await call(data)); }
  } else {
    for (let done = 0; done < count; done += inFlight) {
      const batch = [];
      for (let j = 0; j < Math.min(inFlight, count - done); j++) { batch.push(call(data)); }
      (await Promise.all(batch)).forEach((got) => check(data, got));
    }
  }
  return Number(process.hrtime.bigint() - start) / 1e9 / count;
}

function median(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function micros(seconds) { return (seconds * 1e6).toFixed(2) + ' µs'; }

async function main() {
  const sizes = [['100 B', payload(0, 75), calls], ['10 KB records', payload(100, 0), Math.max(Math.floor(calls / 20), 10)]];
  const rows = [];
  for (const [label, data, count] of sizes) {
    for (const async of [false, true]) {
      for (const inFlight of [1, width]) {
        const shimCall = shim(async);
        const bareCall = bare(async);
        await measure(shimCall, data, Math.min(count, 1000), inFlight); // warm-up
        await measure(bareCall, data, Math.min(count, 1000), inFlight);
        const shimTimes = [];
        const bareTimes = [];
        for (let round = 0; round < rounds; round++) {
          // Alternate the order, as bridgebench does.
          if (round % 2 === 0) {
            shimTimes.push(await measure(shimCall, data, count, inFlight));
            bareTimes.push(await measure(bareCall, data, count, inFlight));
          } else {
            bareTimes.push(await measure(bareCall, data, count, inFlight));
            shimTimes.push(await measure(shimCall, data, count, inFlight));
          }
        }
        const s = median(shimTimes);
        const b = median(bareTimes);
        const what = label + ', ' + (async ? 'async' : 'sync') + ' reply, ' + (inFlight > 1 ? width + ' in flight' : 'one at a time');
        const added = (s - b >= 0 ? '+' : '−') + micros(Math.abs(s - b));
        rows.push('| shim (node) | ' + what + ', time per call | ' + micros(s) + ' (' + added + ') | ' + micros(b) + ' | ' +
          (s / b).toFixed(2) + 'x | — | — |');
      }
    }
  }
  console.log('| Part | Measurement | BridgeKit | Bare | Ratio | Target | Met |');
  console.log('|---|---|---:|---:|---:|---|---|');
  rows.forEach((row) => console.log(row));
  console.log('bench: shim ' + (smoke ? 'smoke run finished' : 'run finished') + ', ' + rows.length + ' rows (node ' + process.version + ')');
}

main().catch((error) => {
  console.error('shim-bench:', error);
  process.exit(1);
});
