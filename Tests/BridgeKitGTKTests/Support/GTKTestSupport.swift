#if WebKitGTK
import BridgeKitGTK
import Foundation
import Testing

/// All WebKitGTK tests share one GTK instance and one GLib context, so they run one at a time on
/// the main actor (nested suites inherit `.serialized`).
@MainActor
@Suite("BridgeKitGTK wrapper", .serialized)
struct GTKWrapperTests {}

/// Generous upper bound for waiting on WebKit (a safety net against hangs, not a timing assertion).
let webKitTimeout: Duration = .seconds(20)

/// Waits (blocking the main actor, delivering WebKit events) until `condition` holds; false when
/// the safety timeout passed first.
@MainActor
func waitUntil(_ condition: () -> Bool) -> Bool {
    GLibMainLoop.shared.iterate(until: condition, timeout: webKitTimeout)
}

/// Lets WebKit run and deliver events for a short while (for checking that something does NOT happen).
@MainActor
func settle(_ duration: Duration = .milliseconds(300)) {
    GLibMainLoop.shared.iterate(until: { false }, timeout: duration)
}

/// Records a view's callbacks.
@MainActor
final class ViewRecorder {
    var titles: [String?] = []
    var progress: [Double] = []
    var loadEvents: [GTKLoadEvent] = []
    var failures: [GTKLoadFailure] = []
    var policyRequests: [GTKPolicyRequest] = []

    init(_ view: GTKWebView) {
        view.onTitleChange = { [weak self] in self?.titles.append($0) }
        view.onProgressChange = { [weak self] in self?.progress.append($0) }
        view.onLoadEvent = { [weak self] in self?.loadEvents.append($0) }
        view.onLoadFailure = { [weak self] in self?.failures.append($0) }
    }

    var finishedLoads: Int { loadEvents.filter { $0 == .finished }.count }
}

/// Loads `html` at `baseURI` and waits for the load to finish and `title` to show up.
@MainActor
func loadAndWait(_ view: GTKWebView, html: String, baseURI: String = "http://127.0.0.1/", title: String) throws {
    // Waits for the `finished` event itself, not only the title: the title can change before
    // the load finishes, and a late `finished` would then reach the caller's own recorder.
    let previous = view.onLoadEvent
    var finished = false
    view.onLoadEvent = { event in
        if event == .finished { finished = true }
        previous?(event)
    }
    defer { view.onLoadEvent = previous }
    try view.loadHTML(html, baseURI: baseURI)
    #expect(waitUntil { finished && view.title == title }, "page with title \(title) did not load")
}

/// The envelope the test relay posts: origin and main-frame flag read in the isolated world.
struct RelayEnvelope: Decodable, Equatable {
    let origin: String
    let mainFrame: Bool
    let body: String
}

/// A relay like the protocol's WebKitGTK relay, reduced for the wrapper tests: runs in the world
/// "bridgekit", forwards page `webbridge:post` events (string detail) to the `webbridge` handler as
/// {origin, mainFrame, body} JSON text, dispatches a non-empty string reply as `webbridge:message`,
/// and records replies and rejections in `window.__relay` (visible to the world only).
let testRelaySource = """
    (function () {
      var mh = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.webbridge;
      var state = { replies: [], errors: [] };
      window.__relay = state;
      window.addEventListener('webbridge:post', function (e) {
        if (typeof e.detail !== 'string' || !mh) { return; }
        var p = mh.postMessage(JSON.stringify({ origin: location.origin, mainFrame: window.top === window, body: e.detail }));
        if (p && typeof p.then === 'function') {
          p.then(function (r) {
            state.replies.push(r === undefined ? 'undefined' : r);
            if (typeof r === 'string' && r.length) {
              window.dispatchEvent(new CustomEvent('webbridge:message', { detail: r }));
            }
          }, function (err) { state.errors.push(String(err && err.message)); });
        }
      });
    })();
    """

/// A page-world script: posts `hello-<name>` through the relay at load and posts `ack:<reply>`
/// for each `webbridge:message`.
func relayPage(name: String, body: String = "") -> String {
    """
    <!doctype html><html><head><title>\(name)</title><script>
    window.addEventListener('webbridge:message', function (e) {
      window.dispatchEvent(new CustomEvent('webbridge:post', { detail: 'ack:' + e.detail }));
    });
    window.dispatchEvent(new CustomEvent('webbridge:post', { detail: 'hello-\(name)' }));
    </script></head><body>\(body)</body></html>
    """
}

/// Closes `view` (the tests' common teardown).
@MainActor
func finish(_ view: GTKWebView) {
    view.close()
}
#endif
