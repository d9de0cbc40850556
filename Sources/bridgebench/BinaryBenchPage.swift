import Foundation

/// The page of the binary-values part (``BinaryBench``): one call at a time, both directions,
/// through BridgeKit's binary values and through base64 in JSON.
///
/// `__bin.start(mode, bytes, count)` runs `count` calls of `bytes` bytes and stores `{ms}`
/// (measured with `performance.now()`) or `{error}` in `__bin.result`. Modes:
///
/// - **binary-up**: `WebBridge.call("BinUpload", {file: Uint8Array})`, the task reads the upload
///   through `BinaryTransfers.upload(of:context:)` and answers the byte count;
/// - **base64-up**: the same bytes encoded with `btoa` in the page (inside the clock) and sent as a
///   string field to `B64Upload`, which decodes them with `Data(base64Encoded:)`;
/// - **binary-down**: `BinDownload` answers `{file}` sent with `BinaryTransfers.send`; the page
///   gets a `Uint8Array`, or, over ``largestWholeDownload`` (where the task streams
///   with `send(chunks:)`), reads it as a stream (`binary: "stream"`), counting the chunks' bytes
///   and keeping none, so the row measures the transport, not the page holding the value whole;
/// - **base64-down**: `B64Download` answers `{data}` as a base64 string, which the page decodes
///   into a `Uint8Array` with `atob` (inside the clock);
/// - **bare-up** / **bare-down**: no bridge: `fetch` of the bare custom-scheme handler
///   (``BareBinaryScheme``, in a ``PeerWebView`` of its own): `POST` the bytes, read the count;
///   `GET` N bytes into a `Uint8Array` (over ``largestWholeDownload``, like binary-down:
///   its `response.body` read chunk by chunk, counting bytes).
///
/// Every answer is checked by its byte count. The page builds the upload bytes before the clock.
enum BinaryBenchPage {
    static let origin = "https://binary.bridgekit.invalid"

    /// The largest download the page reads into one `Uint8Array`; a larger one is read as a
    /// stream, counting bytes (``BinaryBench``'s `largestHeldDownload`: the task streams it too).
    static let largestWholeDownload = 256 << 20

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><title>bridgebench binary</title></head>
        <body>
        <script>
        (function () {
          'use strict';
          var buffers = {};
          function bytesOf(n) {
            if (!buffers[n]) {
              var b = new Uint8Array(n);
              for (var i = 0; i < n; i++) { b[i] = i & 255; }
              buffers = {};
              buffers[n] = b;
            }
            return buffers[n];
          }
          function toBase64(bytes) {
            var parts = [];
            for (var i = 0; i < bytes.length; i += 0x8000) {
              parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000)));
            }
            return btoa(parts.join(''));
          }
          function fromBase64(text) {
            var binary = atob(text);
            var bytes = new Uint8Array(binary.length);
            for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
            return bytes;
          }
          // Over this, downloads are read as streams, counting bytes (BinaryBenchPage.largestWholeDownload).
          var largestHeld = \#(largestWholeDownload);
          async function count(stream) {
            var reader = stream.getReader();
            var n = 0;
            for (;;) {
              var step = await reader.read();
              if (step.done) { return n; }
              n += step.value.length;
            }
          }
          function expect(got, n) {
            if (got !== n) { throw new Error('expected ' + n + ' bytes, got ' + got); }
          }
          var modes = {
            'binary-up': async function (n) {
              expect(await window.WebBridge.call('BinUpload', { file: bytesOf(n) }), n);
            },
            'base64-up': async function (n) {
              expect(await window.WebBridge.call('B64Upload', { data: toBase64(bytesOf(n)) }), n);
            },
            'binary-down': async function (n) {
              if (n > largestHeld) {
                var s = await window.WebBridge.call('BinDownload', n, { binary: 'stream' });
                if (s.file.size !== n) { throw new Error('announced ' + s.file.size); }
                expect(await count(s.file.stream), n);
                return;
              }
              var r = await window.WebBridge.call('BinDownload', n);
              if (!(r.file instanceof Uint8Array)) { throw new Error('not a Uint8Array'); }
              expect(r.file.length, n);
            },
            'bare-up': async function (n) {
              var r = await fetch('bench-bare://bench/up', { method: 'POST', body: bytesOf(n) });
              expect(Number(await r.text()), n);
            },
            'bare-down': async function (n) {
              var r = await fetch('bench-bare://bench/down/' + n);
              if (n > largestHeld) { expect(await count(r.body), n); return; }
              expect(new Uint8Array(await r.arrayBuffer()).length, n);
            },
            'base64-down': async function (n) {
              var r = await window.WebBridge.call('B64Download', n);
              expect(fromBase64(r.data).length, n);
            }
          };
          async function run(mode, n, count) {
            var call = modes[mode];
            if (!call) { throw new Error('no mode ' + mode); }
            if (/-up$/.test(mode)) { bytesOf(n); }
            var t0 = performance.now();
            for (var i = 0; i < count; i++) { await call(n); }
            return { ms: performance.now() - t0 };
          }
          window.__bin = {
            result: null,
            ready: function (bare) { return bare || typeof window.WebBridge === 'object'; },
            start: function (mode, n, count) {
              var self = this;
              self.result = null;
              run(mode, n, count).then(function (r) { self.result = r; }, function (e) {
                self.result = { error: String((e && (e.code ? e.code + ': ' + e.message : e.message)) || e) };
              });
            }
          };
        })();
        </script>
        </body>
        </html>
        """#
}

#if WebKitGTK
extension BinaryBenchPage {
    /// The script that starts `count` calls of `bytes` bytes through `mode`.
    static func start(_ mode: String, bytes: Int, count: Int) -> String {
        "window.__bin.start('\(mode)', \(bytes), \(count)), 0"
    }

    /// The script that reads the run's result (`null` while it runs).
    static let result = "window.__bin.result"

    /// Seconds per call from the JSON text of `__bin.result` for a run of `count` calls.
    /// - Throws: ``EngineBench/Failure`` `page` when the page reported an error or no time.
    static func secondsPerCall(resultJSON json: String, count: Int) throws -> Double {
        struct Outcome: Decodable {
            let ms: Double?
            let error: String?
        }
        let outcome = try? JSONDecoder().decode(Outcome.self, from: Data(json.utf8))
        if let error = outcome?.error { throw EngineBench.Failure.page(error) }
        guard let ms = outcome?.ms else { throw EngineBench.Failure.page("no result") }
        return ms / 1000 / Double(max(count, 1))
    }
}
#endif
