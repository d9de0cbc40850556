import Foundation

/// The command line of bridgehost.
struct HostOptions {
    static let usage = """
    usage: bridgehost [PAGE] [--script FILE] [--timeout SECONDS] [--strict] [--allow-origin ORIGIN]...

    Loads PAGE (an .html file or an http(s) URL; default: the bundled demo page) in a headless
    WebKitGTK web view with BridgeKit's stock tasks, and prints the bridge traffic as JSON lines.

      PAGE                 an HTML file (loaded as https://page.bridgekit.invalid/) or an http(s) URL
      --script FILE        run this JavaScript file in the page after it has loaded
      --timeout SECONDS    stop after this long if the page has not called bridgehost.done (default 30)
      --strict             exit 1 if any call ended in an error the page did not announce with
                           bridgehost.expectError, or if the page did not finish
      --allow-origin O     also accept calls from origin O (repeatable)
      -h, --help           show this help

    Exit status: 0 success, 1 strict failure, 2 usage or start-up error.
    """

    var page: String?
    var scriptFile: String?
    var timeout: Double = 30
    var strict = false
    var extraOrigins: [String] = []

    enum ParseError: Error, CustomStringConvertible {
        case help
        case invalid(String)
        var description: String {
            switch self {
            case .help: HostOptions.usage
            case .invalid(let message): "bridgehost: \(message)\n\n\(HostOptions.usage)"
            }
        }
    }

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(ParseError) -> HostOptions {
        var options = HostOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                throw .help
            case "--strict":
                options.strict = true
            case "--script":
                guard let value = rest.popFirst() else { throw .invalid("--script needs a file") }
                options.scriptFile = value
            case "--timeout":
                guard let value = rest.popFirst(), let seconds = Double(value), seconds > 0, seconds.isFinite else {
                    throw .invalid("--timeout needs a positive number of seconds")
                }
                options.timeout = seconds
            case "--allow-origin":
                guard let value = rest.popFirst() else { throw .invalid("--allow-origin needs an origin") }
                options.extraOrigins.append(value)
            case let other where other.hasPrefix("-"):
                throw .invalid("unknown option \(other)")
            default:
                guard options.page == nil else { throw .invalid("only one PAGE may be given") }
                options.page = argument
            }
        }
        return options
    }
}
