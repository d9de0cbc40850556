#if WebKitGTK
import CWebKitGTK
import BridgeKitGTK
import Foundation

/// A web view driven through WebKitGTK's C API alone, without BridgeKit or BridgeKitGTK's
/// wrappers: the engine as a bare handler or a peer bridge design sees it. Script message
/// handlers (with and without reply), `decide-policy` (navigations), `script-dialog` (`prompt()`)
/// and `webkit_web_view_evaluate_javascript` are all it offers.
///
/// Thread: main actor, which in bridgebench is the GTK thread (``GLibMainLoop/Mode/integrated``:
/// the GLib loop runs on the process main thread and drains the main queue), so WebKit's C API is
/// called directly and its signals run here synchronously, like a native app's delegate methods.
@MainActor
final class PeerWebView {
    /// A script message handler: the posted value, and the reply when registered with reply
    /// (the handler answers it before returning, or references it).
    typealias Handler = (_ value: UnsafeMutablePointer<JSCValue>, _ reply: OpaquePointer?) -> Void

    private let window: UnsafeMutablePointer<GtkWidget>
    let view: UnsafeMutablePointer<WebKitWebView>
    private let manager: UnsafeMutablePointer<WebKitUserContentManager>
    private var handlers: [String: Handler] = [:]
    private var connections: [(instance: UnsafeMutableRawPointer, id: gulong)] = []
    private var closed = false
    /// Called for each navigation action (main frame and subframes) with its URI; true ignores it
    /// (`webkit_policy_decision_ignore`), false leaves the decision to WebKit.
    var onNavigation: ((String) -> Bool)?
    /// Called for each `prompt(message, defaultText)`; the text it returns is what `prompt` returns
    /// (nil: `null`, as if cancelled).
    var onPrompt: ((_ message: String, _ defaultText: String) -> String?)?

    enum Failure: Error, CustomStringConvertible {
        case notOnGTKThread
        case noView
        case javaScript(String)
        case timeout(String)

        var description: String {
            switch self {
            case .notOnGTKThread: "the GLib loop is not integrated with the main thread"
            case .noView: "WebKit could not create a web view (no display?)"
            case .javaScript(let message): "JavaScript failed: \(message)"
            case .timeout(let what): "timed out: \(what)"
            }
        }
    }

    /// Creates a web view in its own ephemeral web context, shown in an offscreen window (as
    /// ``GTKWebView`` does), with the signals connected.
    init() throws(Failure) {
        guard GLibMainLoop.shared.mode == .integrated, bk_is_process_main_thread() != 0 else { throw .notOnGTKThread }
        guard let context = webkit_web_context_new_ephemeral() else { throw .noView }
        guard let manager = webkit_user_content_manager_new(), let view = bk_web_view_new(context, manager),
            let window = gtk_offscreen_window_new()
        else {
            g_object_unref(UnsafeMutableRawPointer(context))
            throw .noView
        }
        g_object_ref_sink(UnsafeMutableRawPointer(view))
        g_object_unref(UnsafeMutableRawPointer(context))  // the view keeps its context
        self.window = window
        self.view = view
        self.manager = manager
        gtk_window_set_default_size(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self), 800, 600)
        gtk_container_add(
            UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkContainer.self),
            UnsafeMutableRawPointer(view).assumingMemoryBound(to: GtkWidget.self))
        gtk_widget_show_all(window)
        connect(
            UnsafeMutableRawPointer(view), "decide-policy", unsafeBitCast(peerDecidePolicy, to: GCallback.self), tag: ""
        )
        connect(
            UnsafeMutableRawPointer(view), "script-dialog", unsafeBitCast(peerScriptDialog, to: GCallback.self), tag: ""
        )
    }

    /// Registers a script message handler `name` in the page world (or in the script world
    /// `world`); with `withReply`, the page's Promise is settled by the reply the handler gets.
    func register(_ name: String, world: String? = nil, withReply: Bool, _ handler: @escaping Handler) {
        handlers[name] = handler
        if withReply {
            connect(
                UnsafeMutableRawPointer(manager), "script-message-with-reply-received::\(name)",
                unsafeBitCast(peerMessageWithReply, to: GCallback.self), tag: name)
            _ = webkit_user_content_manager_register_script_message_handler_with_reply(manager, name, world)
        } else {
            connect(
                UnsafeMutableRawPointer(manager), "script-message-received::\(name)",
                unsafeBitCast(peerMessage, to: GCallback.self), tag: name)
            _ = webkit_user_content_manager_register_script_message_handler(manager, name)
        }
    }

    /// Adds `source` as a user script run at document start in the main frame's page world (or in
    /// the script world `world`).
    func addUserScript(_ source: String, world: String? = nil) {
        let script =
            if let world {
                webkit_user_script_new_for_world(
                    source, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, world,
                    nil, nil)
            } else {
                webkit_user_script_new(
                    source, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)
            }
        webkit_user_content_manager_add_script(manager, script)
        webkit_user_script_unref(script)
    }

    /// Starts loading `html` with `baseURI`.
    func loadHTML(_ html: String, baseURI: String) {
        webkit_web_view_load_html(view, html, baseURI)
    }

    /// Runs `script` in the main frame without waiting (a reply script of a peer design).
    func evaluate(_ script: String) {
        var source = script
        source.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                webkit_web_view_evaluate_javascript(
                    view, chars.baseAddress, gssize(chars.count), nil, nil, nil, nil, nil)
            }
        }
    }

    /// Runs `script` in the main frame (in the page world, or in the script world `world`);
    /// `completion` gets its value's JSON text (a string's JSON text is quoted), or nil when it
    /// failed or is undefined.
    func evaluate(_ script: String, world: String? = nil, completion: @escaping (String?) -> Void) {
        let box = Unmanaged.passRetained(EvaluationBox(completion)).toOpaque()
        var source = script
        source.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                webkit_web_view_evaluate_javascript(
                    view, chars.baseAddress, gssize(chars.count), world, nil, nil,
                    peerEvaluated, box)
            }
        }
    }

    /// Runs `script` (in the page world, or in the script world `world`) and returns its value's
    /// JSON text.
    func evaluateReturningJSON(_ script: String, world: String? = nil) async -> String? {
        await withCheckedContinuation { continuation in
            evaluate(script, world: world) { continuation.resume(returning: $0) }
        }
    }

    /// Polls `condition` until it holds; GLib keeps running while this task sleeps.
    func waitUntil(
        _ what: String, pollEvery interval: Duration = .milliseconds(10), timeout: Double = 600,
        _ condition: () async -> Bool
    ) async throws {
        let deadline = Measure.now() + timeout
        while await !condition() {
            if Measure.now() > deadline { throw Failure.timeout(what) }
            try await Task.sleep(for: interval)
        }
    }

    /// Disconnects the signals and destroys the view. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        for connection in connections {
            g_signal_handler_disconnect(connection.instance, connection.id)
        }
        connections.removeAll()
        for name in handlers.keys {
            webkit_user_content_manager_unregister_script_message_handler(manager, name)
        }
        handlers.removeAll()
        webkit_web_view_stop_loading(view)
        gtk_widget_destroy(window)
        g_object_unref(UnsafeMutableRawPointer(view))
        g_object_unref(UnsafeMutableRawPointer(manager))
    }

    // MARK: signals

    private func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ callback: GCallback, tag: String) {
        let target = Unmanaged.passRetained(PeerSignalTarget(view: self, tag: tag)).toOpaque()
        let id = g_signal_connect_data(
            instance, signal, callback, target, peerReleaseTarget, GConnectFlags(rawValue: 0))
        connections.append((instance, id))
    }

    fileprivate func deliver(_ name: String, _ value: UnsafeMutablePointer<JSCValue>, _ reply: OpaquePointer?) -> Bool {
        guard !closed, let handler = handlers[name] else { return false }
        handler(value, reply)
        return true
    }

    fileprivate func decideNavigation(_ uri: String) -> Bool {
        !closed && (onNavigation?(uri) ?? false)
    }

    fileprivate func answerPrompt(_ message: String, _ defaultText: String) -> String? {
        guard !closed else { return nil }
        return onPrompt?(message, defaultText)
    }
}

/// A signal's user data: the view (weak) and the handler name.
private final class PeerSignalTarget {
    weak var view: PeerWebView?
    let tag: String

    init(view: PeerWebView, tag: String) {
        self.view = view
        self.tag = tag
    }

    static func from(_ data: UnsafeMutableRawPointer?) -> PeerSignalTarget? {
        data.map { Unmanaged<PeerSignalTarget>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// A value a WebKit signal hands over on the GTK thread, which is the main actor here (the
/// callbacks check nothing else: ``PeerWebView/init()`` refuses any other mode).
private struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// What an evaluation hands its completion.
private final class EvaluationBox {
    let completion: (String?) -> Void
    init(_ completion: @escaping (String?) -> Void) { self.completion = completion }
}

private let peerReleaseTarget: GClosureNotify = { data, _ in
    if let data { Unmanaged<PeerSignalTarget>.fromOpaque(data).release() }
}

/// `script-message-received::<name>` (4.1 API: a `WebKitJavascriptResult`).
private let peerMessage: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = {
    _, result, data in
    guard let result, let target = PeerSignalTarget.from(data),
        let value = webkit_javascript_result_get_js_value(result)
    else {
        return
    }
    let sent = Unchecked((target, value))
    MainActor.assumeIsolated { _ = sent.value.0.view?.deliver(sent.value.0.tag, sent.value.1, nil) }
}

/// `script-message-with-reply-received::<name>`: TRUE when a handler took the reply.
private let peerMessageWithReply:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<JSCValue>?, OpaquePointer?, UnsafeMutableRawPointer?)
        -> gboolean = {
            _, value, reply, data in
            guard let value, let reply, let target = PeerSignalTarget.from(data) else { return 0 }
            let sent = Unchecked((target, value, reply))
            return MainActor.assumeIsolated {
                sent.value.0.view?.deliver(sent.value.0.tag, sent.value.1, sent.value.2) ?? false
            } ? 1 : 0
        }

/// `decide-policy`: ignores the navigations ``PeerWebView/onNavigation`` takes.
private let peerDecidePolicy:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutablePointer<WebKitPolicyDecision>?, WebKitPolicyDecisionType,
        UnsafeMutableRawPointer?
    ) -> gboolean = { _, decision, type, data in
        guard let decision, type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION,
            let target = PeerSignalTarget.from(data)
        else {
            return 0
        }
        let navigation = UnsafeMutableRawPointer(decision).assumingMemoryBound(to: WebKitNavigationPolicyDecision.self)
        guard let action = webkit_navigation_policy_decision_get_navigation_action(navigation),
            let request = webkit_navigation_action_get_request(action),
            let uri = webkit_uri_request_get_uri(request)
        else { return 0 }
        let text = String(cString: uri)
        let sent = Unchecked(target)
        guard MainActor.assumeIsolated({ sent.value.view?.decideNavigation(text) ?? false }) else { return 0 }
        webkit_policy_decision_ignore(decision)
        return 1
    }

/// `script-dialog`: answers `prompt()` through ``PeerWebView/onPrompt``; other dialogs are dismissed.
private let peerScriptDialog:
    @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = {
        _, dialog, data in
        guard let dialog, let target = PeerSignalTarget.from(data) else { return 0 }
        guard webkit_script_dialog_get_dialog_type(dialog) == WEBKIT_SCRIPT_DIALOG_PROMPT else { return 1 }
        let message = webkit_script_dialog_get_message(dialog).map { String(cString: $0) } ?? ""
        let defaultText = webkit_script_dialog_prompt_get_default_text(dialog).map { String(cString: $0) } ?? ""
        let sent = Unchecked(target)
        if let answer = MainActor.assumeIsolated({ sent.value.view?.answerPrompt(message, defaultText) }) {
            webkit_script_dialog_prompt_set_text(dialog, answer)
        }
        return 1
    }

/// `GAsyncReadyCallback` of ``PeerWebView/evaluate(_:completion:)``.
private let peerEvaluated: GAsyncReadyCallback = { source, result, data in
    guard let data else { return }
    let box = Unmanaged<EvaluationBox>.fromOpaque(data).takeRetainedValue()
    var json: String?
    if let source, let result {
        var error: UnsafeMutablePointer<GError>?
        let view = UnsafeMutableRawPointer(source).assumingMemoryBound(to: WebKitWebView.self)
        if let value = webkit_web_view_evaluate_javascript_finish(view, result, &error) {
            if jsc_value_is_undefined(value) == 0, let text = jsc_value_to_json(value, 0) {
                json = String(cString: text)
                g_free(text)
            }
            g_object_unref(UnsafeMutableRawPointer(value))
        }
        if let error { g_error_free(error) }
    }
    let sent = Unchecked(box)
    MainActor.assumeIsolated { sent.value.completion(json) }
}
#endif
