#if WebKitGTK
import BridgeKit
import Foundation

/// The page's console on standard output (``GTKWebViewConfiguration/writesConsoleToStandardOutput``),
/// and the scripts bridgehost prints the console from.
///
/// WebKit's own setting for this (`enable-write-console-messages-to-stdout`) goes through WebKit's
/// logging, which a WebKitGTK built with journald (Debian's 2.50) sends to the systemd journal,
/// and where no journal runs (a container, CI) nowhere: a new user's headless app printed
/// nothing. So BridgeKitGTK forwards the console itself: a user script at document start in every
/// frame wraps `console`'s methods (they still print as before, for the Web Inspector) and
/// reports uncaught errors, unhandled promise rejections and failed subresource loads as
/// `bridgekit:console` events; a script of an isolated world of its own (``world``) forwards each
/// to a message handler there, which writes one line per message: `CONSOLE LOG hello`,
/// `CONSOLE ERROR TypeError: … (app.js:12)`, an iframe's `CONSOLE LOG [iframe <origin>] …`. What
/// the page wrote is made terminal-safe (`TerminalText`) and cut at ``maxMessageCharacters``.
///
/// Why the isolated world: a handler in the page world takes any value from any frame's scripts,
/// of any size, and WebKit copies it into the app first (attack 20: an iframe posting 160 MiB
/// values grew the app by 1.4 GiB). The forwarder passes on only strings of at most
/// ``maxEventCharacters``, at most ``maxMessagesPerSecond`` and ``maxEventUnitsPerSecond`` a
/// second per frame (then one line says how many it left out), and it has flow control: it posts
/// a frame's waiting messages together, one post at a time, the next when the app has answered
/// the last, and holds at most ``maxWaitingUnits`` meanwhile. What a frame's flood costs the app
/// is bounded in the frame's own process, before WebKit copies anything, and what WebKit holds
/// for the app is one post per frame however fast the frames post (attack 22: sixteen frames'
/// posts without flow control grew the app by about 1 GiB). The handler then reads at most
/// ``maxMessagesPerSecondPerView`` and ``maxBytesPerSecondPerView`` a second of the main frame's
/// messages, and as much again of all other frames' together, so iframes cannot push the main
/// frame's lines out (attack 22).
///
/// Thread: the handler runs on the main actor (WebKit's script-message signal).
package enum GTKConsoleOutput {
    /// The message handler's name, in the page world.
    package static let handlerName = "bridgekitConsole"

    /// The longest message written, in characters; a longer one is cut and says how much was left out.
    package static let maxMessageCharacters = 8192

    /// The longest source (script or resource URL) written, in characters.
    package static let maxSourceCharacters = 2048

    /// The console levels written as themselves; any other is written `ERROR`.
    package static let levels: Set<String> = ["log", "info", "warn", "error", "debug"]

    /// The isolated script world of the forwarder and the handler.
    package static let world = "bridgekit-console"

    /// The longest event the forwarder passes on, in UTF-16 code units (a message the page-world
    /// script cut at ``maxMessageCharacters``, in its JSON envelope); a longer one is a page's own
    /// and is dropped.
    package static let maxEventCharacters = 4 * maxMessageCharacters

    /// The most messages one frame's forwarder passes on in a second.
    package static let maxMessagesPerSecond = 500

    /// The most UTF-16 code units of events one frame's forwarder passes on in a second: about
    /// 25 messages cut at ``maxMessageCharacters``, or 500 of 500 characters (CI, stop 39: a frame
    /// passing 16 M units a second held another view's calls up for 0.7-1.7 s at p95).
    package static let maxEventUnitsPerSecond = 256 * 1024

    /// The most UTF-16 code units of messages one frame's forwarder holds while its last post
    /// is unanswered; a message over that is left out and counted.
    package static let maxWaitingUnits = 64 * 1024

    /// The most messages of a view's main frame written in a second, and as many of its other
    /// frames together; a post over that is dropped unread, and its frame's forwarder says how
    /// many messages it left out (``Intake``).
    package static let maxMessagesPerSecondPerView = 1000

    /// The most bytes (UTF-8) of a view's main frame's messages decoded in a second, and as many
    /// of its other frames' together; a post over that is dropped unread like one over
    /// ``maxMessagesPerSecondPerView`` (``Intake``).
    package static let maxBytesPerSecondPerView = 1 << 20

    /// One message the script posts.
    package struct Message: Decodable, Sendable, Equatable {
        /// `log`, `info`, `warn`, `error` or `debug`.
        package var level: String
        /// `console`, `uncaught`, `unhandledrejection` or `resource`.
        package var kind: String
        package var message: String
        /// The script or resource URL, or empty.
        package var source: String?
        /// The line in `source`, or 0.
        package var line: Int?
        /// The message's length before the page-world script cut it, in UTF-16 code units.
        package var length: Int?
        /// The origin of the iframe that wrote it (as its forwarder read it, in the isolated
        /// world), or nil for the main frame's.
        package var frame: String?

        private enum CodingKeys: String, CodingKey { case level, kind, message, source, line, length }

        /// A message of `level` and `kind` saying `message`, with no source.
        package init(level: String, kind: String, message: String) {
            self.level = level
            self.kind = kind
            self.message = message
        }

        /// Reads a message from its JSON text (`GTKScriptMessage.bodyJSONText`); nil when it is
        /// not one (a page may post anything to the handler).
        package init?(json: String) {
            guard let message = try? BridgeJSON.decode(Message.self, from: Data(json.utf8)) else { return nil }
            self = message
        }
    }

    /// The line written for `message`, without the line break: `CONSOLE <LEVEL> <message>`, with
    /// ` (<file>:<line>)` when it names a source. The message is cut at ``maxMessageCharacters``
    /// and the source at ``maxSourceCharacters`` UTF-16 code units (as the page-world script
    /// counts), on a scalar's boundary: a count of grapheme clusters let one "character" of 32,000
    /// combining marks through (attack 22).
    package static func line(for message: Message) -> String {
        var text = Substring(message.message)
        let units = text.utf16.count
        if units > maxMessageCharacters {
            let left = max(message.length ?? 0, units) - maxMessageCharacters
            text = prefix(text, units: maxMessageCharacters) + "… (\(left) more characters)"
        }
        var place = ""
        if let source = message.source.map({ String(prefix(Substring($0), units: maxSourceCharacters)) }),
            !source.isEmpty
        {
            let file = URL(string: source)?.lastPathComponent ?? source
            place = " (" + (file.isEmpty ? source : file) + (message.line.map { $0 > 0 ? ":\($0)" : "" } ?? "") + ")"
        }
        // The page can dispatch its own events: only the documented levels and kinds are written.
        let level =
            message.kind == "console" && levels.contains(message.level) ? message.level.uppercased() : "ERROR"
        // A page's script can dispatch events of any kind and source: an iframe's lines say
        // whose they are, so none reads as the main frame's (attack 23).
        let frame = message.frame.map { "[iframe \(prefix(Substring($0), units: maxSourceCharacters))] " } ?? ""
        return TerminalText.safe("CONSOLE \(level) \(frame)\(text)\(place)")
    }

    /// The longest start of `text` of at most `units` UTF-16 code units that ends on a Unicode
    /// scalar's boundary.
    private static func prefix(_ text: Substring, units: Int) -> Substring {
        var end = text.startIndex
        var taken = 0
        for scalar in text.unicodeScalars {
            taken += UTF16.width(scalar)
            guard taken <= units else { break }
            end = text.unicodeScalars.index(after: end)
        }
        return text[..<end]
    }

    /// Registers the handler and adds the scripts to `view` (before its first load), handing each
    /// message to `receive`.
    /// - Throws: what registering a handler or adding a script throws (``GTKWebViewError``).
    @MainActor
    package static func install(
        on view: GTKWebView, receive: @escaping @MainActor (Message) -> Void
    ) throws(GTKWebViewError) {
        let intake = Intake(receive: receive)
        try view.registerScriptMessageHandler(name: handlerName, world: world, withReply: true) { message in
            intake.take(message)
        }
        try view.addUserScript(forwarder, world: world, frames: .allFrames, injectionTime: .documentStart)
        try view.addUserScript(source, world: nil, frames: .allFrames, injectionTime: .documentStart)
    }

    /// ``install(on:receive:)`` writing each message's ``line(for:)`` to standard output, off the
    /// main actor (``LineWriter``).
    @MainActor
    static func install(on view: GTKWebView) throws(GTKWebViewError) {
        try install(on: view) { LineWriter.standardOutput.write(line(for: $0)) }
    }

    /// The user script (page world, every frame, document start): dispatches each message as a
    /// `bridgekit:console` event whose detail is its JSON text, the message cut at
    /// ``maxMessageCharacters`` (and a character more, so the cut shows).
    package static let source = #"""
        (function () {
          "use strict";
          // Evaluated again in the same window (WebKit does after document.open(), which erased the
          // window's listeners): add the listeners back, and wrap console no second time.
          if (window.__bridgekitConsoleHook) { window.__bridgekitConsoleHook(); return; }
          var stringify = JSON.stringify;
          var CustomEventCtor = window.CustomEvent;
          var dispatch = window.dispatchEvent.bind(window);
          function text(value) {
            if (typeof value === "string") { return value; }
            if (value instanceof Error) { return String(value); }
            try { var json = stringify(value); if (json !== undefined) { return json; } } catch (e) {}
            return String(value);
          }
          function send(level, kind, message, source, line) {
            try {
              var whole = String(message);
              var cut = whole.length > \#(maxMessageCharacters + 1) ? whole.slice(0, \#(maxMessageCharacters + 1)) : whole;
              var detail = stringify({ level: level, kind: kind, message: cut, source: String(source || "").slice(0, 2048), line: line || 0, length: whole.length });
              dispatch(new CustomEventCtor("bridgekit:console", { detail: detail }));
            } catch (e) {}
          }
          ["log", "info", "warn", "error", "debug"].forEach(function (level) {
            var original = console[level];
            console[level] = function () {
              var parts = [];
              for (var i = 0; i < arguments.length; i++) { parts.push(text(arguments[i])); }
              send(level, "console", parts.join(" "));
              return original.apply(console, arguments);
            };
          });
          function onError(event) {
            if (typeof ErrorEvent !== "undefined" && event instanceof ErrorEvent) {
              send("error", "uncaught", event.message || "Uncaught error", event.filename, event.lineno);
            } else if (event.target && event.target !== window) {
              var target = event.target, url = target.src || target.href || "";
              send("error", "resource", "failed to load " + (url || String(target.tagName).toLowerCase()), url, 0);
            }
          }
          function onRejection(event) {
            var reason = event.reason;
            var message = reason && typeof reason === "object" && "message" in reason ? reason.message : text(reason);
            send("error", "unhandledrejection", "Unhandled promise rejection: " + message);
          }
          function listen() {
            addEventListener("error", onError, true);
            addEventListener("unhandledrejection", onRejection);
          }
          Object.defineProperty(window, "__bridgekitConsoleHook", { value: listen });
          listen();
        })();
        """#

    /// The forwarder (the isolated ``world``, every frame, document start): takes each
    /// `bridgekit:console` event's detail when it is a string of at most ``maxEventCharacters``
    /// without a line feed, at most ``maxMessagesPerSecond`` and ``maxEventUnitsPerSecond`` a
    /// second, and holds at most ``maxWaitingUnits`` of them; it posts what it holds as one
    /// ``Post`` when the app has answered its last post (flow control). A post the app answers
    /// `drop <ms>` (``Intake``) counts as left out, and the frame posts nothing for `<ms>` and a
    /// random part of a backoff (a second, two after a further drop in a row, and so on up to
    /// 32 s; scaled down for a post under 16,384 units), so frames dropped together come back
    /// apart and a frame with a line or two comes back with the next second. When a second left
    /// some out, a
    /// message says how many, at the end of that second; a note that is itself dropped adds its
    /// count to the next. Evaluated again in the same window (after `document.open()` erased its
    /// listener), it adds the same listener back.
    package static let forwarder = #"""
        (function () {
          "use strict";
          if (window.__bridgekitConsole) { window.addEventListener("bridgekit:console", window.__bridgekitConsole); return; }
          var handlers = window.webkit && window.webkit.messageHandlers;
          var handler = handlers && handlers.bridgekitConsole;
          if (!handler) { return; }
          var post = handler.postMessage.bind(handler);
          var later = window.setTimeout;
          var header = function () { return window.top === window ? "main" : "sub " + String(self.origin); };
          var started = 0, sent = 0, units = 0, leftOut = 0, noting = false;
          // Waiting details and what each stands for (1, or the count a note carries).
          var waiting = [], weights = [], waitingUnits = 0, posting = false, paused = false, backoff = 0;
          var flush = null, noteLater = null;
          var after = function (ms, run) {
            try { Reflect.apply(later, window, [run, ms]); return true; } catch (e) { return false; }
          };
          /** Counts a post the app did not take as left out, and holds this frame's posts for a while. */
          var dropped = function (weight, size, ms) {
            leftOut += weight;
            // Frames dropped in the same second must not all come back at the same moment; a
            // frame whose post was small (a line or two) comes back with the next second.
            backoff = Math.min(32000, Math.max(1000, backoff * 2));
            var wait = ms + Math.floor(Math.random() * backoff * Math.min(1, size / 16384));
            paused = true;
            if (!after(wait, function () { paused = false; flush(); })) { paused = false; }
            noteLater();
          };
          flush = function () {
            if (posting || paused || waiting.length === 0) { return; }
            var batch = header() + "\n" + waiting.join("\n");
            var size = waitingUnits;
            var weight = 0;
            for (var i = 0; i < weights.length; i++) { weight += weights[i]; }
            waiting = []; weights = []; waitingUnits = 0;
            var result = null;
            try { result = post(batch); } catch (e) { leftOut += weight; noteLater(); return; }
            if (!result || typeof result.then !== "function") { return; }
            posting = true;
            result.then(function (answer) {
              posting = false;
              var text = typeof answer === "string" ? answer : "";
              if (text.lastIndexOf("drop ", 0) === 0) {
                dropped(weight, size, Math.max(10, parseInt(text.slice(5), 10) || 1000));
              } else {
                backoff = 0;
                flush();
              }
            }, function () { posting = false; dropped(weight, size, 50); });
          };
          /** Starts a new second when the current one has ended, first saying what it left out. */
          var rollOver = function (now) {
            if (now - started < 1000) { return; }
            if (leftOut > 0) {
              var note = JSON.stringify({ level: "warn", kind: "console", message: leftOut + " console messages left out (more than \#(maxMessagesPerSecond) messages or \#(maxEventUnitsPerSecond) characters a second, or the app was busy)", source: "", line: 0 });
              waiting.push(note); weights.push(leftOut); waitingUnits += note.length;
            }
            started = now; sent = 0; units = 0; leftOut = 0;
          };
          /** Says what this second left out when it ends, even when the page logs nothing more. */
          noteLater = function () {
            if (noting) { return; }
            noting = true;
            if (!after(Math.max(0, 1000 - (Date.now() - started)) + 5, function () { noting = false; rollOver(Date.now()); flush(); })) {
              noting = false;
            }
          };
          var listener = function (event) {
            try {
              var detail = event.detail;
              if (typeof detail !== "string" || detail.length > \#(maxEventCharacters) || detail.indexOf("\n") !== -1) { return; }
              rollOver(Date.now());
              if (sent >= \#(maxMessagesPerSecond) || units + detail.length > \#(maxEventUnitsPerSecond)
                  || waitingUnits + detail.length > \#(maxWaitingUnits)) { leftOut += 1; noteLater(); return; }
              sent += 1;
              units += detail.length;
              waiting.push(detail); weights.push(1); waitingUnits += detail.length;
              flush();
            } catch (e) {}
          };
          Object.defineProperty(window, "__bridgekitConsole", { value: listener });
          window.addEventListener("bridgekit:console", listener);
        })();
        """#
}
#endif
