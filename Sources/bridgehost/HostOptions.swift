import BridgeKit
import Foundation

/// The command line of bridgehost.
struct HostOptions {
    static let usage = """
        usage: bridgehost [PAGE] [options]

        Loads PAGE in WebKitGTK with BridgeKit's stock tasks (Alert, Echo, History, File.save,
        File.open) plus the tasks you mock, and logs the bridge traffic: every call and reply with its
        payload, progress, events, native-to-page calls, the page's console messages and uncaught
        errors, and a summary.

          PAGE                  an .html file (served with its folder on http://127.0.0.1:<port>/, so
                                relative scripts and styles load), a file:// URL, an http(s) URL, or
                                nothing for the bundled demo page
          --mock FILE           answer tasks from FILE, a JSON object of task name -> mock:
                                  {"Cart.add":  {"reply": {"count": 2}},
                                   "Cart.pay":  {"error": {"code": "declined", "message": "Card declined"}},
                                   "Sync":      {"reply": "done", "delayMs": 800,
                                                 "progress": [{"percent": 50}, {"percent": 100}]}}
                                a mock has "reply" (any JSON) or "error" ({"code", "message"?,
                                "details"?}), and optionally "delayMs" (0-600000, before the reply),
                                "progress" (steps sent during the delay) and "events" ([{"name",
                                "data"?}], sent just before the reply, as the app would emit them)
                                and "version" (a string such as "2.1", for WebBridge.supports); a
                                mock replaces a stock task of the same name; the file is checked when
                                it loads
          --list-tasks          print the tasks the page can call (stock, mocked, bridgehost's) and exit
          --window              show the page in a visible window with the Web Inspector enabled
                                (right-click > Inspect Element); the run ends when you close the
                                window, press Ctrl-C or --timeout passes (bridgehost.done is logged)
          --alert-choice C      which Alert button to choose: a button title, else an index from 0
                                (default: the last button; with --window, a dialog asks you)
          --payload-limit N     show at most N bytes of each payload in the log (default 200;
                                0 shows sizes only)
          --json                JSON lines (the default when standard output is not a terminal)
          --human               compact human-readable lines (the default on a terminal)
          --script FILE         run this JavaScript file in the page after it has loaded
          --timeout SECONDS     stop after this long if the page has not called bridgehost.done
                                (default 30; with --window, no limit unless given)
          --strict              exit 1 if any call ended in an error the page did not announce with
                                bridgehost.expectError, if the page reported an uncaught error, or
                                if the page did not finish
          --allow-origin O      also accept calls from origin O (repeatable)
          --files DIR           the folder File.open reads and File.save writes (your own files;
                                kept after the run); default: a folder of this run, removed at exit
          -h, --help            show this help

        Page-side control tasks (call them like any task):
          WebBridge.call("bridgehost.done", {ok: true, summary: ["line", ...]})
                                ends the run; ok false counts as a failure with --strict; the
                                summary lines (optional) are printed in bridgehost's summary
          WebBridge.call("bridgehost.expectError", {code: "unknown_task"})
                                announces that the next error reply with this code is expected
                                (it then does not count as a failure with --strict)

        Exit status: 0 success; 1 strict failure; 2 usage, mock file or start-up error;
        3 the page failed to load (network error or HTTP status >= 400).
        """

    /// How the log is written.
    enum Format: Equatable {
        /// Chosen from standard output: human on a terminal, JSON lines otherwise.
        case automatic
        case human
        case json
    }

    var page: String?
    var scriptFile: String?
    var timeout: Double?
    var strict = false
    var extraOrigins: [String] = []
    var mockFile: String?
    /// `--files`: the folder of the stock `File` tasks; `nil`, a temporary one of the run.
    var filesDirectory: String?
    var listTasks = false
    var window = false
    var alertChoice: String?
    var payloadLimit = 200
    var format = Format.automatic

    enum ParseError: Error, CustomStringConvertible {
        case help
        case invalid(String)
        var description: String {
            switch self {
            case .help: HostOptions.usage
            case .invalid(let message): "bridgehost: \(message)\n(see bridgehost --help)"
            }
        }
    }

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(ParseError) -> HostOptions {
        var options = HostOptions()
        var rest = arguments[...]
        func value(for option: String, _ what: String) throws(ParseError) -> String {
            guard let value = rest.popFirst() else { throw .invalid("\(option) needs \(what)") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                throw .help
            case "--strict":
                options.strict = true
            case "--list-tasks":
                options.listTasks = true
            case "--window":
                options.window = true
            case "--json":
                options.format = .json
            case "--human":
                options.format = .human
            case "--script":
                options.scriptFile = try value(for: argument, "a file")
            case "--mock":
                options.mockFile = try value(for: argument, "a file")
            case "--alert-choice":
                options.alertChoice = try value(for: argument, "a button index or title")
            case "--payload-limit":
                guard let bytes = Int(try value(for: argument, "a number of bytes")), bytes >= 0 else {
                    throw .invalid("--payload-limit needs a number of bytes (0 or more)")
                }
                options.payloadLimit = bytes
            case "--timeout":
                guard let seconds = Double(try value(for: argument, "seconds")), seconds > 0, seconds.isFinite else {
                    throw .invalid("--timeout needs a positive number of seconds")
                }
                options.timeout = seconds
            case "--files":
                let path = try value(for: argument, "a folder")
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
                else { throw .invalid("--files: \(path) is not a folder") }
                options.filesDirectory = path
            case "--allow-origin":
                let origin = try value(for: argument, "an origin")
                // A mistyped origin ("app.example", no scheme) would deny every call it was meant to allow.
                do { _ = try OriginPattern(validating: origin) } catch { throw .invalid("--allow-origin: \(error)") }
                options.extraOrigins.append(origin)
            case let other where other.hasPrefix("-") && other != "-":
                throw .invalid("unknown option \(other)")
            default:
                guard options.page == nil else { throw .invalid("only one PAGE may be given") }
                options.page = argument
            }
        }
        return options
    }

    /// The time limit of the run in seconds; `nil` for none (a window without `--timeout`).
    var effectiveTimeout: Double? {
        if let timeout { return timeout }
        return window ? nil : 30
    }
}
