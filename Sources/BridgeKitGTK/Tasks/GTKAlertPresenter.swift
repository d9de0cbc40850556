#if WebKitGTK
import BridgeKit
public import BridgeTasks
import CWebKitGTK

/// An `AlertPresenter` that shows the page's alert as a GTK dialog (`GtkDialog`, GTK 3) on
/// Linux: the counterpart of the UIKit and AppKit presenters for the stock `Alert` task.
///
/// ```swift
/// try router.register(AlertTask(presenter: GTKAlertPresenter(presentingOn: window)))
/// ```
///
/// - The dialog is modal for and transient to the window (centered on it, above it); without a
///   window it is a top-level dialog of its own. Its title is the request's title, its text the
///   message, and its buttons the page's labels in the page's order, left to right (an
///   underscore in a label is shown as written, not taken as a mnemonic); the chosen index is the
///   button's position.
/// - When the call is cancelled (the page navigated or cancelled, or the call timed out), the
///   dialog is destroyed and `CancellationError` is thrown.
/// - When the dialog is closed without a button (its close button, Escape), the call fails with
///   `cancelled` instead of waiting.
/// - One dialog at a time, in the order the calls came (`AlertQueue`), as the page's
///   `window.alert` is modal.
///
/// The settling logic is `AlertSession`'s, tested on Linux without a display; the dialog itself
/// is tested under Xvfb. Thread: main actor; the dialog lives on the GTK thread
/// (``GLibMainLoop``).
@MainActor
public final class GTKAlertPresenter: AlertPresenter {
    private let window: @MainActor () -> GTKWindow?
    private let queue = AlertQueue()
    /// The dialog on screen, if any.
    private(set) var dialog: GTKAlertDialog?
    /// How many alerts wait for the one on screen.
    var waiting: Int { queue.waiting }

    /// Creates a presenter that asks `window` for the window to attach the dialog to, each time
    /// an alert is shown.
    /// - Parameter window: returns the window, or `nil` for a dialog of its own.
    public init(window: @escaping @MainActor () -> GTKWindow? = { nil }) {
        self.window = window
    }

    /// Creates a presenter that attaches the dialog to `window` (held weakly, so the presenter
    /// never keeps a window alive).
    public convenience init(presentingOn window: GTKWindow) {
        self.init(window: { [weak window] in window })
    }

    /// Shows `request` as a dialog and returns the index of the button the person clicked.
    /// - Throws: `CancellationError` when the call is cancelled (the dialog is destroyed);
    ///   ``BridgeError/cancelled(_:)`` when the dialog was closed without a button;
    ///   ``BridgeError/unavailable(_:)`` when GTK could not make the dialog.
    public func present(_ request: AlertRequest) async throws -> Int {
        try await queue.run { try await show(request) }
    }

    /// Shows one dialog, once it is `request`'s turn (``present(_:)``).
    private func show(_ request: AlertRequest) async throws -> Int {
        try Task.checkCancellation()
        let parent = window()?.handle.map(GOpaque.init)
        let buttonCount = request.buttons.count
        let session = AlertSession()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                guard session.start(continuation) else { return }
                let made = GTKThread.perform {
                    GTKAlertDialog.make(request, parent: parent) { response in
                        Task { @MainActor in
                            if (0..<buttonCount).contains(response) {
                                session.choose(response)
                            } else {
                                session.dismissedWithoutChoice()
                            }
                            self.dismiss()
                        }
                    }
                }
                guard let made else {
                    session.fail(BridgeError.unavailable("GTK could not make the alert's dialog."))
                    return
                }
                dialog = made
                if session.didPresent() == .dismiss { dismiss() }
            }
        } onCancel: {
            Task { @MainActor in
                if session.cancel() == .dismiss { self.dismiss() }
            }
        }
    }

    /// Destroys the dialog on screen, if any.
    private func dismiss() {
        guard let dialog else { return }
        self.dialog = nil
        GTKThread.post { dialog.close() }
    }
}

/// The GTK-thread half of a ``GTKAlertPresenter``'s alert: the `GtkDialog` and its `response`
/// connection. Used only on the GTK thread.
final class GTKAlertDialog: @unchecked Sendable {
    let dialog: UnsafeMutablePointer<GtkWidget>
    let signals = SignalConnections()
    /// Called once with the response id: a button's index, or a negative `GtkResponseType`.
    private var onResponse: (@Sendable (Int) -> Void)?
    private var isClosed = false

    private init(dialog: UnsafeMutablePointer<GtkWidget>, onResponse: @escaping @Sendable (Int) -> Void) {
        self.dialog = dialog
        self.onResponse = onResponse
    }

    /// Makes and shows the dialog of `request` (GTK thread); nil when GTK cannot.
    static func make(
        _ request: AlertRequest, parent: GOpaque?, onResponse: @escaping @Sendable (Int) -> Void
    ) -> GTKAlertDialog? {
        guard let dialog = gtk_dialog_new() else { return nil }
        g_object_ref_sink(gRaw(dialog))
        let window: UnsafeMutablePointer<GtkWindow> = gCast(gRaw(dialog))
        gtk_window_set_title(window, cText(request.title ?? ""))
        gtk_window_set_modal(window, 1)
        if let parent {
            gtk_window_set_transient_for(window, UnsafeMutablePointer<GtkWindow>(parent.pointer))
            gtk_window_set_destroy_with_parent(window, 1)
        }
        if let message = request.message, !message.isEmpty, let label = gtk_label_new(cText(message)) {
            let labelView: UnsafeMutablePointer<GtkLabel> = gCast(gRaw(label))
            gtk_label_set_line_wrap(labelView, 1)
            gtk_label_set_selectable(labelView, 1)
            gtk_widget_set_margin_start(label, 18)
            gtk_widget_set_margin_end(label, 18)
            gtk_widget_set_margin_top(label, 12)
            gtk_widget_set_margin_bottom(label, 12)
            let content: UnsafeMutablePointer<GtkContainer> = gCast(
                gRaw(gtk_dialog_get_content_area(gCast(gRaw(dialog)))))
            gtk_container_add(content, label)
        }
        for (index, label) in request.buttons.enumerated() {
            // gtk_dialog_add_button takes "_" as a mnemonic mark; "__" is a literal underscore.
            let text = cText(label).replacingOccurrences(of: "_", with: "__")
            _ = gtk_dialog_add_button(gCast(gRaw(dialog)), text, gint(clamping: index))
        }
        if let last = request.buttons.indices.last {
            gtk_dialog_set_default_response(gCast(gRaw(dialog)), gint(clamping: last))
        }
        let core = GTKAlertDialog(dialog: dialog, onResponse: onResponse)
        core.signals.connect(
            gRaw(dialog), signal: "response", callback: gCallback(responseCallback), target: SignalTarget(owner: core))
        gtk_widget_show_all(dialog)
        return core
    }

    /// Answers the dialog as if button `index` was clicked (GTK thread); a negative `index` is a
    /// `GtkResponseType` (`-4`: closed by the window manager).
    func respond(_ index: Int) {
        guard !isClosed else { return }
        gtk_dialog_response(gCast(gRaw(dialog)), gint(clamping: index))
    }

    /// The dialog's title (GTK thread).
    var title: String {
        gtk_window_get_title(gCast(gRaw(dialog))).map { String(cString: $0) } ?? ""
    }

    /// Delivers `response` once.
    fileprivate func received(_ response: Int) {
        let handler = onResponse
        onResponse = nil
        handler?(response)
    }

    /// Disconnects and destroys the dialog (GTK thread). Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        onResponse = nil
        signals.disconnectAll()
        gtk_widget_destroy(dialog)
        g_object_unref(gRaw(dialog))
    }

    /// The open dialog behind a signal's user data, or nil.
    fileprivate static func open(_ userData: UnsafeMutableRawPointer?) -> GTKAlertDialog? {
        guard let core = SignalTarget.from(userData)?.owner as? GTKAlertDialog, !core.isClosed else { return nil }
        return core
    }
}

/// `text` without NUL characters, which would end a C string early (GTK would show a cut text).
private func cText(_ text: String) -> String {
    isCStringSafe(text) ? text : text.replacingOccurrences(of: "\0", with: "")
}

/// `response`: `void (*)(GtkDialog *, gint response_id, gpointer)`.
private let responseCallback: @convention(c) (UnsafeMutableRawPointer?, gint, UnsafeMutableRawPointer?) -> Void = {
    _, response, userData in
    GTKAlertDialog.open(userData)?.received(Int(response))
}
#endif
