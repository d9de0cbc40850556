#if WebKitGTK
import BridgeKit

/// HTML and JavaScript for the end-to-end pages.
enum E2EPage {
    /// A page with the test helpers installed in its head (see ``helpers``).
    /// - Parameters:
    ///   - title: the document title (tests wait for it).
    ///   - head: extra head markup.
    ///   - body: body markup.
    static func html(title: String, head: String = "", body: String = "") -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title>
        <script>\(helpers)</script>\(head)</head><body>\(body)</body></html>
        """
    }

    /// Page-world helpers, run as the first page script (the shim and relay run before it, at
    /// document start):
    /// - `__rx`: every native->page message the shim got but final replies, as `{kind, id, name}`:
    ///   through an evaluated script (`WebBridge._receive`; the spy replaces `window.WebBridge`,
    ///   configurable, by a copy whose `_receive` records first) or, bound to the document, as a
    ///   `webbridge:message` event from the notice's world; `__events`: every `webbridge:message`
    ///   (the relay's final replies and the bound messages).
    /// - `e2eCall(key, task, options, settings)`: a promise call whose outcome lands in `__settled[key]`
    ///   (`{ok, data}` or `{ok:false, code, isBridgeError, details}`); `__settleCount[key]` counts outcomes.
    /// - `e2eEqual(a, b)`: deep equality with `===` on every leaf.
    static let helpers = #"""
        window.__rx = []; window.__events = []; window.__settled = {}; window.__settleCount = {}; window.__log = [];
        window.__hasBridge = typeof window.WebBridge === 'object' && window.WebBridge !== null;
        function e2eShape(m) {
          try { var o = typeof m === 'string' ? JSON.parse(m) : m;
            return { kind: String(o.kind), id: typeof o.id === 'string' ? o.id : null, name: typeof o.name === 'string' ? o.name : null };
          } catch (e) { return { kind: 'unparsable', id: null, name: null }; }
        }
        (function () {
          var real = window.WebBridge;
          if (!window.__hasBridge) { return; }
          var spy = Object.assign({}, real);
          spy._receive = function (m) { window.__rx.push(e2eShape(m)); return real._receive(m); };
          Object.defineProperty(window, 'WebBridge', { value: Object.freeze(spy), configurable: true });
        })();
        window.addEventListener('webbridge:message', function (e) {
          var shape = e2eShape(e.detail);
          window.__events.push(shape);
          if (shape.kind !== 'reply') { window.__rx.push(shape); }
        });
        function e2eOutcome(key, outcome) {
          window.__settleCount[key] = (window.__settleCount[key] || 0) + 1;
          window.__settled[key] = outcome;
        }
        function e2eCall(key, task, options, settings) {
          window.__settled[key] = null;
          var p = WebBridge.call(task, options, settings);
          p.then(function (v) { e2eOutcome(key, { ok: true, data: v === undefined ? '__undefined__' : v }); },
            function (e) { e2eOutcome(key, { ok: false, code: e && e.code, name: e && e.name, message: e && e.message,
              isBridgeError: e instanceof WebBridge.WebBridgeError, details: (e && e.details !== undefined) ? e.details : null }); });
          return p;
        }
        function e2eEqual(a, b) {
          if (a === b) { return true; }
          if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') { return false; }
          if (Array.isArray(a) !== Array.isArray(b)) { return false; }
          var ka = Object.keys(a), kb = Object.keys(b);
          if (ka.length !== kb.length) { return false; }
          for (var i = 0; i < ka.length; i++) {
            if (!Object.prototype.hasOwnProperty.call(b, ka[i]) || !e2eEqual(a[ka[i]], b[ka[i]])) { return false; }
          }
          return true;
        }
        """#

    /// A JavaScript string literal for `text` that is independent of BridgeKit's encoder: every
    /// UTF-16 code unit other than ASCII letters, digits and space is written as `\uXXXX`.
    static func jsLiteral(_ text: String) -> String {
        var out = "'"
        out.reserveCapacity(text.utf16.count * 2)
        for unit in text.utf16 {
            let isPlain =
                (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5A)
                || (unit >= 0x61 && unit <= 0x7A) || unit == 0x20
            if isPlain, let scalar = Unicode.Scalar(unit) {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "'"
    }

    /// A JavaScript expression for a JSON value, built with ``jsLiteral(_:)`` for every string.
    static func jsExpression(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return "\(number)"
        case .string(let text): return jsLiteral(text)
        case .array(let elements): return "[" + elements.map(jsExpression).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { "[\(jsLiteral($0.key))]:\(jsExpression($0.value))" }.joined(separator: ",") + "}"
        }
    }
}
#endif
