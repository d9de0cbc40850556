#if canImport(WebKit)
import WebKit

/// Evaluates BridgeKit's scripts in a `WKWebView`'s main frame: the engine end of a
/// ``PageChannel``.
///
/// - Page world (the default): `evaluateJavaScript(_:completionHandler:)` (iOS 8 / macOS 10.10),
///   the completion form on purpose. The `async` import of that method trapped on an
///   `undefined` result with SDKs before WebKit PR #37519, and from an `async` context Swift
///   would pick it over the completion form (SE-0296), so the completion form is named with its
///   label and wrapped in a checked continuation here.
/// - Another content world: `evaluateJavaScript(_:in:in:completionHandler:)` with `in: nil`
///   (main frame) and that world (iOS 14 / macOS 11), so the script reaches the shim installed
///   there.
///
/// Scripts end in `void 0` (see ``PageScript``), so the result is `undefined`; it is ignored and
/// never crosses an actor. A WebKit error (page gone, script error) is thrown to the router.
/// The web view is held weakly; after ``disconnect()`` or once the view is gone, evaluation
/// throws `unavailable` without touching WebKit.
@MainActor
final class WebKitScriptEvaluator {
    private weak var webView: WKWebView?
    private let contentWorld: WKContentWorld
    private let usesPageWorld: Bool
    private var isConnected = true

    /// Creates an evaluator for `webView` in `contentWorld`.
    init(webView: WKWebView, contentWorld: WKContentWorld) {
        self.webView = webView
        self.contentWorld = contentWorld
        self.usesPageWorld = contentWorld === WKContentWorld.page
    }

    /// A channel for ``BridgeRouter/connect(_:)``. It holds this evaluator (which holds the web
    /// view weakly); it may be called from any thread and hops to the main actor.
    var channel: PageChannel {
        PageChannel { [self] script in
            try await self.evaluate(script)
        }
    }

    /// A channel that evaluates scripts bound to a document (``PageChannel/evaluateForDocument``)
    /// with `documents`, an evaluator for the document notice's content world.
    func channel(bindingDocumentsWith documents: WebKitScriptEvaluator) -> PageChannel {
        PageChannel(
            evaluate: { [self] script in try await self.evaluate(script) },
            evaluateForDocument: { script in try await documents.evaluate(script) })
    }

    /// Stops evaluating: later scripts throw `unavailable`.
    func disconnect() {
        isConnected = false
    }

    /// Evaluates `script` in the main frame and returns when WebKit reports completion.
    /// - Throws: ``BridgeError/unavailable(_:)`` when disconnected or the view is gone;
    ///   WebKit's error when the evaluation failed.
    func evaluate(_ script: String) async throws {
        guard isConnected, let webView else {
            throw BridgeError.unavailable("The web view is detached or was released.")
        }
        let world = contentWorld
        let usesPageWorld = usesPageWorld
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            if usesPageWorld {
                webView.evaluateJavaScript(
                    script,
                    completionHandler: { _, error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else {
                            continuation.resume()
                        }
                    })
            } else {
                webView.evaluateJavaScript(
                    script, in: nil, in: world,
                    completionHandler: { result in
                        switch result {
                        case .success: continuation.resume()
                        case .failure(let error): continuation.resume(throwing: error)
                        }
                    })
            }
        }
    }
}
#endif
