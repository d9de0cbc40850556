#if WebKitGTK
import CWebKitGTK

// The web view's own signals (GTK thread). Each C callback recovers the core from user_data, reads
// what it needs from WebKit right away, and queues an event for the main actor.

extension GTKWebViewCore {
    /// Connects title, progress, load, failure, policy and termination signals of the view.
    func connectViewSignals() {
        let instance = gRaw(webView)
        let connections: [(String, GCallback)] = [
            ("notify::title", gCallback(titleChangedCallback)),
            ("notify::estimated-load-progress", gCallback(progressChangedCallback)),
            ("load-changed", gCallback(loadChangedCallback)),
            ("load-failed", gCallback(loadFailedCallback)),
            ("decide-policy", gCallback(decidePolicyCallback)),
            ("web-process-terminated", gCallback(webProcessTerminatedCallback)),
        ]
        for (signal, callback) in connections {
            signals.connect(instance, signal: signal, callback: callback, target: SignalTarget(owner: self))
        }
    }

    /// Handles `decide-policy`: when a Swift handler is set, takes the decision (a reference to it),
    /// queues it and returns TRUE; otherwise returns FALSE (WebKit's default).
    func decidePolicy(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>, type: WebKitPolicyDecisionType)
        -> gboolean
    {
        guard hasPolicyHandler.load(ordering: .acquiring), let request = GTKPolicyRequest.read(decision, type: type)
        else {
            return 0
        }
        var canShow = true
        if type == WEBKIT_POLICY_DECISION_TYPE_RESPONSE {
            let response: UnsafeMutablePointer<WebKitResponsePolicyDecision> = gCast(gRaw(decision))
            canShow = webkit_response_policy_decision_is_mime_type_supported(response) != 0
        }
        post(.policy(request, GTKPolicyDecision(decision, canShowMIMEType: canShow)))
        return 1
    }
}

/// `notify::title`: `void (*)(GObject *, GParamSpec *, gpointer)`.
private let titleChangedCallback:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
        _, _, userData in
        guard let core = GTKWebViewCore.open(userData) else { return }
        core.post(.title(gString(webkit_web_view_get_title(core.webView))))
    }

/// `notify::estimated-load-progress`: `void (*)(GObject *, GParamSpec *, gpointer)`.
private let progressChangedCallback:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
        _, _, userData in
        guard let core = GTKWebViewCore.open(userData) else { return }
        core.post(.progress(webkit_web_view_get_estimated_load_progress(core.webView)))
    }

/// `load-changed`: `void (*)(WebKitWebView *, WebKitLoadEvent, gpointer)`.
private let loadChangedCallback:
    @convention(c) (UnsafeMutableRawPointer?, WebKitLoadEvent, UnsafeMutableRawPointer?) -> Void = {
        _, event, userData in
        guard let core = GTKWebViewCore.open(userData) else { return }
        core.post(.load(GTKLoadEvent(event)))
    }

/// `load-failed`: `gboolean (*)(WebKitWebView *, WebKitLoadEvent, gchar *failing_uri, GError *, gpointer)`.
/// Returns TRUE (no WebKit error page) when ``GTKWebView/suppressesErrorPages`` is set.
private let loadFailedCallback:
    @convention(c) (
        UnsafeMutableRawPointer?, WebKitLoadEvent, UnsafePointer<gchar>?, UnsafeMutablePointer<GError>?,
        UnsafeMutableRawPointer?
    )
        -> gboolean = { _, event, failingURI, error, userData in
            guard let core = GTKWebViewCore.open(userData) else { return 0 }
            core.post(
                .loadFailure(
                    GTKLoadFailure(
                        event: GTKLoadEvent(event), uri: gString(failingURI) ?? "",
                        message: gString(error?.pointee.message) ?? "",
                        domain: error.flatMap { gString(g_quark_to_string($0.pointee.domain)) } ?? "",
                        code: Int(error?.pointee.code ?? 0))))
            return core.suppressesErrorPages.load(ordering: .acquiring) ? 1 : 0
        }

/// `decide-policy`: `gboolean (*)(WebKitWebView *, WebKitPolicyDecision *, WebKitPolicyDecisionType, gpointer)`.
private let decidePolicyCallback:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutablePointer<WebKitPolicyDecision>?, WebKitPolicyDecisionType,
        UnsafeMutableRawPointer?
    )
        -> gboolean = { _, decision, type, userData in
            guard let decision, let core = GTKWebViewCore.open(userData) else { return 0 }
            return core.decidePolicy(decision, type: type)
        }

/// `web-process-terminated`: `void (*)(WebKitWebView *, WebKitWebProcessTerminationReason, gpointer)`.
private let webProcessTerminatedCallback:
    @convention(c) (UnsafeMutableRawPointer?, WebKitWebProcessTerminationReason, UnsafeMutableRawPointer?) -> Void = {
        _, reason, userData in
        guard let core = GTKWebViewCore.open(userData) else { return }
        let text =
            switch reason {
            case WEBKIT_WEB_PROCESS_CRASHED: "crashed"
            case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: "exceeded-memory-limit"
            default: "terminated-by-api"
            }
        core.post(.webProcessTerminated(text))
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
