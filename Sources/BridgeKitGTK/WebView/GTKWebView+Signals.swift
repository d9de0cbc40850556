#if WebKitGTK
import CWebKitGTK

// The web view's own signals. Each C callback recovers its SignalTarget from user_data, checks
// that the Swift view still exists and is open, and forwards to the matching Swift closure.

extension GTKWebView {
    /// Connects title, progress, load, failure, policy and termination signals of the view.
    func connectViewSignals() {
        let instance = gRaw(webView)
        signals.connect(instance, signal: "notify::title", callback: gCallback(titleChangedCallback), target: SignalTarget(owner: self))
        signals.connect(
            instance, signal: "notify::estimated-load-progress", callback: gCallback(progressChangedCallback),
            target: SignalTarget(owner: self))
        signals.connect(instance, signal: "load-changed", callback: gCallback(loadChangedCallback), target: SignalTarget(owner: self))
        signals.connect(instance, signal: "load-failed", callback: gCallback(loadFailedCallback), target: SignalTarget(owner: self))
        signals.connect(instance, signal: "decide-policy", callback: gCallback(decidePolicyCallback), target: SignalTarget(owner: self))
        signals.connect(
            instance, signal: "web-process-terminated", callback: gCallback(webProcessTerminatedCallback),
            target: SignalTarget(owner: self))
    }

    /// The open Swift view a signal's user data points to, or nil.
    static func openView(_ userData: UnsafeMutableRawPointer?) -> GTKWebView? {
        guard let target = SignalTarget.from(userData), let view = target.owner as? GTKWebView, !view.isClosed else {
            return nil
        }
        return view
    }

    /// Handles `decide-policy`; returns the C handler's gboolean.
    func decidePolicy(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>, type: WebKitPolicyDecisionType) -> gboolean {
        guard let handler = onPolicyDecision, let request = Self.policyRequest(decision, type: type) else { return 0 }
        let handle = GTKPolicyDecision(decision)
        switch handler(request, handle) {
        case .useDefault:
            if handle.isDecided { return 1 }
            handle.relinquish()
            return 0
        case .use:
            handle.use()
        case .ignore:
            handle.ignore()
        case .deferred:
            break  // the handler keeps `handle`; if it did not, its deinit ignores (fail closed)
        }
        return 1
    }
}

/// `notify::title`: `void (*)(GObject *, GParamSpec *, gpointer)`.
private let titleChangedCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
    _, _, userData in
    let arguments = GLibCallbackArguments(userData)
    MainActor.assumeIsolated {
        guard let view = GTKWebView.openView(arguments.value) else { return }
        view.onTitleChange?(view.title)
    }
}

/// `notify::estimated-load-progress`: `void (*)(GObject *, GParamSpec *, gpointer)`.
private let progressChangedCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
    _, _, userData in
    let arguments = GLibCallbackArguments(userData)
    MainActor.assumeIsolated {
        guard let view = GTKWebView.openView(arguments.value) else { return }
        view.onProgressChange?(view.estimatedProgress)
    }
}

/// `load-changed`: `void (*)(WebKitWebView *, WebKitLoadEvent, gpointer)`.
private let loadChangedCallback: @convention(c) (UnsafeMutableRawPointer?, WebKitLoadEvent, UnsafeMutableRawPointer?) -> Void = {
    _, event, userData in
    let arguments = GLibCallbackArguments(userData)
    MainActor.assumeIsolated {
        guard let view = GTKWebView.openView(arguments.value) else { return }
        view.onLoadEvent?(GTKLoadEvent(event))
    }
}

/// `load-failed`: `gboolean (*)(WebKitWebView *, WebKitLoadEvent, gchar *failing_uri, GError *, gpointer)`.
private let loadFailedCallback:
    @convention(c) (UnsafeMutableRawPointer?, WebKitLoadEvent, UnsafePointer<gchar>?, UnsafeMutablePointer<GError>?, UnsafeMutableRawPointer?)
        -> gboolean = { _, event, failingURI, error, userData in
            let failure = GTKLoadFailure(
                event: GTKLoadEvent(event), uri: gString(failingURI) ?? "",
                message: gString(error?.pointee.message) ?? "",
                domain: error.flatMap { gString(g_quark_to_string($0.pointee.domain)) } ?? "",
                code: Int(error?.pointee.code ?? 0))
            let arguments = GLibCallbackArguments(userData)
            return MainActor.assumeIsolated {
                guard let view = GTKWebView.openView(arguments.value) else { return 0 }
                view.onLoadFailure?(failure)
                return view.suppressesErrorPages ? 1 : 0
            }
        }

/// `decide-policy`: `gboolean (*)(WebKitWebView *, WebKitPolicyDecision *, WebKitPolicyDecisionType, gpointer)`.
private let decidePolicyCallback:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<WebKitPolicyDecision>?, WebKitPolicyDecisionType, UnsafeMutableRawPointer?)
        -> gboolean = { _, decision, type, userData in
            let arguments = GLibCallbackArguments((decision, userData))
            return MainActor.assumeIsolated {
                guard let decision = arguments.value.0, let view = GTKWebView.openView(arguments.value.1) else { return 0 }
                return view.decidePolicy(decision, type: type)
            }
        }

/// `web-process-terminated`: `void (*)(WebKitWebView *, WebKitWebProcessTerminationReason, gpointer)`.
private let webProcessTerminatedCallback:
    @convention(c) (UnsafeMutableRawPointer?, WebKitWebProcessTerminationReason, UnsafeMutableRawPointer?) -> Void = {
        _, reason, userData in
        let text =
            switch reason {
            case WEBKIT_WEB_PROCESS_CRASHED: "crashed"
            case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: "exceeded-memory-limit"
            default: "terminated-by-api"
            }
        let arguments = GLibCallbackArguments(userData)
        MainActor.assumeIsolated {
            guard let view = GTKWebView.openView(arguments.value) else { return }
            view.onWebProcessTerminated?(text)
        }
    }

extension GTKLoadEvent {
    /// Maps `WebKitLoadEvent`; unknown future values count as ``finished``.
    init(_ event: WebKitLoadEvent) {
        switch event {
        case WEBKIT_LOAD_STARTED: self = .started
        case WEBKIT_LOAD_REDIRECTED: self = .redirected
        case WEBKIT_LOAD_COMMITTED: self = .committed
        default: self = .finished
        }
    }
}
#endif
