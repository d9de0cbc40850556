/// The page-world user script that forwards the page's console messages, uncaught errors,
/// unhandled promise rejections and failed subresource loads to bridgehost's
/// `bridgehostConsole` message handler. Injected at document start, so it wraps `console`
/// before any page script runs; the wrapped methods still print as before (Web Inspector).
enum ConsoleScript {
    /// The message handler's name.
    static let handlerName = "bridgehostConsole"

    /// The script text.
    static let source = #"""
        (function () {
          "use strict";
          var handlers = window.webkit && window.webkit.messageHandlers;
          var handler = handlers && handlers.bridgehostConsole;
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
