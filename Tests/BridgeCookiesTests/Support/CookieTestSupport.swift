import BridgeTestSupport
import Foundation
import Synchronization

@testable import BridgeCookies

/// The fixed clock of the cookie field cases: 2030-01-01T00:00:00Z.
let cookieEpoch = Date(timeIntervalSince1970: 1_893_456_000)

/// A clock tests can move forward. Starts at ``cookieEpoch``.
final class CookieTestClock: Sendable {
    private let current = Mutex(cookieEpoch)

    /// The current time.
    var now: Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// A jar reading this clock.
    func makeJar(_ configuration: CookieJar.Configuration = CookieJar.Configuration()) -> CookieJar {
        CookieJar(configuration: configuration, clock: { self.now })
    }
}

/// A jar frozen at ``cookieEpoch``.
func makeFixedJar(_ configuration: CookieJar.Configuration = CookieJar.Configuration()) -> CookieJar {
    CookieJar(configuration: configuration, clock: { cookieEpoch })
}

/// Parses a URL literal written in a test.
func url(_ text: String) -> URL {
    guard let url = URL(string: text) else { preconditionFailure("bad test URL \(text)") }
    return url
}

/// A UTC date from its parts, for expectations.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    let days = CookieDate.daysFromCivil(year: year, month: month, day: day)
    return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
}

/// A fresh, empty temporary folder, removed by the caller with `removeItem`.
func makeTemporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bridgekit-cookies-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Runs a `document.cookie` script in node against a recording `document` stub.
enum CookieScriptRunner {
    /// What the script did to the stub.
    struct Outcome: Decodable, Equatable {
        /// Every value assigned to `document.cookie`, in order, converted with `String(v)`.
        var assigned: [String]
        /// Whether every assigned value was a JS string (not coerced from another type).
        var allStrings: Bool
        /// `typeof` the script's completion value.
        var completion: String
    }

    /// Evaluates `script` as a classic script in a fresh context whose only globals are a
    /// `document` with a recording `cookie` setter and a `location` of `pageURL` (its
    /// `protocol` and `hostname`, as WHATWG URL gives them), and returns what it recorded.
    /// The script is passed through a temporary file (``NodeJS/run(_:stdin:)``), never through
    /// the program text; `pageURL` is written into it as a JSON string.
    /// - Throws: ``NodeJS/Failure`` when node fails; `DecodingError` on unexpected output.
    static func run(_ script: String, pageURL: String = "https://app.example/account/settings") throws -> Outcome {
        let pageJSON = String(decoding: try JSONEncoder().encode(pageURL), as: UTF8.self)
        let program = #"""
            const fs = require('fs');
            const vm = require('vm');
            const script = fs.readFileSync(process.argv[2], 'utf8');
            const page = new URL(\#(pageJSON));
            const location = { protocol: page.protocol, hostname: page.hostname };
            const assigned = [];
            let allStrings = true;
            const document = {};
            Object.defineProperty(document, 'cookie', {
              get() { return ''; },
              set(v) { if (typeof v !== 'string') { allStrings = false; } assigned.push(String(v)); },
            });
            const completion = vm.runInNewContext(script, { document, location });
            process.stdout.write(JSON.stringify({ assigned, allStrings, completion: typeof completion }));
            """#
        // NodeJS.run hands the script over as the program's input file (argv[2]).
        let output = try NodeJS.run(program, stdin: script)
        return try JSONDecoder().decode(Outcome.self, from: Data(output.utf8))
    }
}

/// Every RFC 6265 §4.1.1 cookie-octet, in order.
let allCookieOctets: String = {
    var scalars = String.UnicodeScalarView()
    for value in UInt32(0x21)...0x7E where CookieValuePolicy.isCookieOctet(value) {
        if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
    }
    return String(scalars)
}()

extension InMemoryCookieStore {
    /// The user browsed `sites` other sites (`site<n>.example`), each setting `perSite` HttpOnly
    /// cookies (`c<i>=v`): more cookies than a small jar holds, none over a site's limit.
    func addOtherSites(_ sites: Range<Int>, perSite: Int) async throws {
        for site in sites {
            for index in 0..<perSite {
                try await setCookie(
                    Cookie(name: "c\(index)", value: "v", domain: "site\(site).example", isHTTPOnly: true))
            }
        }
    }
}
