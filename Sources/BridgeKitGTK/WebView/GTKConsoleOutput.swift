#if WebKitGTK
import BridgeKit
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The page's console on standard output (``GTKWebViewConfiguration/writesConsoleToStandardOutput``),
/// and the page-world user script bridgehost prints the console from.
///
/// WebKit's own setting for this (`enable-write-console-messages-to-stdout`) goes through WebKit's
/// logging, which a WebKitGTK built with journald (Debian's 2.50) sends to the systemd journal,
/// and where no journal runs (a container, CI) nowhere: a new user's headless app printed
/// nothing. So BridgeKitGTK forwards the console itself: a user script at document start in every
/// frame wraps `console`'s methods (they still print as before, for the Web Inspector) and
/// reports uncaught errors, unhandled promise rejections and failed subresource loads to a
/// page-world message handler, which writes one line per message:
/// `CONSOLE LOG hello`, `CONSOLE ERROR Uncaught TypeError: … (app.js:12)`. What the page wrote is
/// made terminal-safe (`TerminalText`) and cut at ``maxMessageCharacters``.
///
/// Thread: the handler runs on the main actor (WebKit's script-message signal).
package enum GTKConsoleOutput {
    /// The message handler's name, in the page world.
    package static let handlerName = "bridgekitConsole"

    /// The longest message written, in characters; a longer one is cut and says how much was left out.
    package static let maxMessageCharacters = 8192

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

        /// Reads a message from its JSON text (`GTKScriptMessage.bodyJSONText`); nil when it is
        /// not one (a page may post anything to the handler).
        package init?(json: String) {
            guard let message = try? BridgeJSON.decode(Message.self, from: Data(json.utf8)) else { return nil }
            self = message
        }
    }

    /// The line written for `message`, without the line break: `CONSOLE <LEVEL> <message>`, with
    /// ` (<file>:<line>)` when it names a source.
    package static func line(for message: Message) -> String {
        var text = message.message
        if text.count > maxMessageCharacters {
            let left = text.count - maxMessageCharacters
            text = String(text.prefix(maxMessageCharacters)) + "… (\(left) more characters)"
        }
        var place = ""
        if let source = message.source, !source.isEmpty {
            let file = URL(string: source)?.lastPathComponent ?? source
            place = " (" + (file.isEmpty ? source : file) + (message.line.map { $0 > 0 ? ":\($0)" : "" } ?? "") + ")"
        }
        let level = message.kind == "console" ? message.level.uppercased() : "ERROR"
        return TerminalText.safe("CONSOLE \(level) \(text)\(place)")
    }

    /// Registers the handler and adds the script to `view` (before its first load).
    /// - Throws: what registering a handler or adding a script throws (``GTKWebViewError``).
    @MainActor
    static func install(on view: GTKWebView) throws(GTKWebViewError) {
        try view.registerScriptMessageHandler(name: handlerName, world: nil, withReply: false) { message in
            guard let console = Message(json: message.bodyJSONText) else { return }
            writeLine(line(for: console))
        }
        try view.addUserScript(source, world: nil, frames: .allFrames, injectionTime: .documentStart)
    }

    /// Writes `line` and a line break to standard output in one `write(2)`, unbuffered, so lines
    /// of several views do not interleave and none waits in a buffer when the app is killed.
    private static func writeLine(_ line: String) {
        let data = Data((line + "\n").utf8)
        data.withUnsafeBytes { raw in
            guard var base = raw.baseAddress else { return }
            var left = raw.count
            while left > 0 {
                let written = write(STDOUT_FILENO, base, left)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                left -= written
                base += written
            }
        }
    }

    /// The user script (page world, every frame, document start).
    package static let source = #"""
        (function () {
          "use strict";
          var handlers = window.webkit && window.webkit.messageHandlers;
          var handler = handlers && handlers.bridgekitConsole;
          if (!handler) { return; }
          var post = handler.postMessage.bind(handler);
          var stringify = JSON.stringify;
          function text(value) {
            if (typeof value === "string") { return value; }
            if (value instanceof Error) { return String(value); }
            try { var json = stringify(value); if (json !== undefined) { return json; } } catch (e) {}
            return String(value);
          }
          function send(level, kind, message, source, line) {
            try { post({ level: level, kind: kind, message: String(message), source: source || "", line: line || 0 }); } catch (e) {}
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
          addEventListener("error", function (event) {
            if (typeof ErrorEvent !== "undefined" && event instanceof ErrorEvent) {
              send("error", "uncaught", event.message || "Uncaught error", event.filename, event.lineno);
            } else if (event.target && event.target !== window) {
              var target = event.target, url = target.src || target.href || "";
              send("error", "resource", "failed to load " + (url || String(target.tagName).toLowerCase()), url, 0);
            }
          }, true);
          addEventListener("unhandledrejection", function (event) {
            var reason = event.reason;
            var message = reason && typeof reason === "object" && "message" in reason ? reason.message : text(reason);
            send("error", "unhandledrejection", "Unhandled promise rejection: " + message);
          });
        })();
        """#
}
#endif
