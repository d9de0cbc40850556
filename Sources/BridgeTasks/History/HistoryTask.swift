public import BridgeKit
public import Foundation

/// The stock `History` task: receives the shim's history notices (pushState, replaceState,
/// popstate) and hands them to the host as an `AsyncStream`, for example to update a back
/// button.
///
/// A notice is page input, so only a URL the sending document could really have reaches the
/// stream: `pushState` and `replaceState` can never change a document's origin (HTML, "URL and
/// history update steps"), so a notice whose URL is not `http` or `https`, or not same-origin
/// with the frame that sent it (``CallContext/source``), is refused with `invalid_options`
/// (``refusal(url:sender:)``); the router's traffic log records the refusal (a notice sent with
/// `notify` gets no reply), and the stream never sees it. A sender without an origin (an opaque
/// one, admitted only by a policy with ``AccessPolicy/allowsOpaqueOrigins``) has no URL in common
/// with anything and is refused too (SECURITY.md, "History notices").
///
/// The stream keeps the newest ``bufferLimit`` notices when the host reads slower than the page
/// navigates, and a notice's URL is at most ``maxURLLength`` bytes, so what the stream holds is
/// bounded in bytes too (16 MiB at the most). Calls settle with `null`.
public struct HistoryTask: BridgeTask {
    /// How many unread notices the stream keeps.
    public static let bufferLimit = 256
    /// The longest URL a notice may report, in bytes of UTF-8 (64 KiB; far over what browsers
    /// and servers handle in practice). A longer one is refused with `invalid_options`, reason
    /// `"url_too_long"`.
    public static let maxURLLength = 65_536

    public let name: String
    public let policy: AccessPolicy?
    /// The notices, in the order the page sent them. Single consumer.
    public let notices: AsyncStream<HistoryNotice>
    private let continuation: AsyncStream<HistoryNotice>.Continuation

    /// Creates the task and its stream.
    /// - Parameters:
    ///   - name: the task name; default `"History"` (the shim posts to that name).
    ///   - policy: who may call; `nil` uses the router's policy.
    public init(name: String = "History", policy: AccessPolicy? = nil) {
        self.name = name
        self.policy = policy
        (notices, continuation) = AsyncStream.makeStream(
            of: HistoryNotice.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
    }

    /// Ends the stream; later notices are dropped.
    public func finish() {
        continuation.finish()
    }

    /// Checks the notice against its sender and hands it to ``notices``.
    /// - Parameters:
    ///   - options: the notice.
    ///   - context: the call; its ``CallContext/source`` is the sender as the engine reported it.
    /// - Returns: nothing (`null` for a call with an id).
    /// - Throws: ``refusal(url:sender:)``'s `invalid_options` error for a URL the sender cannot have.
    public func run(_ options: HistoryNotice, context: CallContext) async throws -> NoResult {
        if let refusal = Self.refusal(of: options, sender: context.source.origin) { throw refusal }
        continuation.yield(options)
        return NoResult()
    }

    /// Schemes whose URLs have no tuple origin (HTML, "origin"): a notice never carries one.
    static let schemesWithoutOrigin: Set<String> = ["javascript", "data", "file", "blob", "about"]

    /// Why a notice is refused for a sender, or `nil` when the sender can have made it: its
    /// ``HistoryNotice/href`` is at most ``maxURLLength`` bytes (else reason `"url_too_long"`)
    /// and its URL passes ``refusal(url:sender:)``. Pure; any thread.
    public static func refusal(of notice: HistoryNotice, sender: SecurityOrigin?) -> BridgeError? {
        guard notice.href.utf8.count <= maxURLLength else {
            return BridgeError(
                code: "invalid_options", message: "A history notice's URL is at most \(maxURLLength) bytes.",
                details: ["path": "url", "reason": "url_too_long"])
        }
        return refusal(url: notice.url, sender: sender)
    }

    /// Why a notice's URL is refused for a sender, or `nil` when the sender can have that URL.
    /// Pure; any thread.
    ///
    /// - Parameters:
    ///   - url: the URL the notice reports.
    ///   - sender: the sending document's origin; `nil` when it has none (opaque or unknown).
    /// - Returns: `nil` for a URL whose origin (scheme, host, port; default ports folded) equals
    ///   `sender` and whose scheme is `http`, `https` or the sender's own (an app's asset scheme,
    ///   such as BridgeKitGTK's `app://bundle` or a `WKURLSchemeHandler`'s); otherwise an
    ///   `invalid_options` error whose details are `{"path": "url", "reason": …}` with reason
    ///   `"scheme_not_allowed"` (another scheme, and always `javascript:`, `data:`, `file:`,
    ///   `blob:`, `about:`, which have no tuple origin), `"credentials_not_allowed"` (a user name
    ///   or password: the sender's origin does not say which it has, `pushState` cannot change
    ///   them, and a host should never show or log them) or `"not_same_origin"` (another origin,
    ///   or a sender without one).
    public static func refusal(url: URL, sender: SecurityOrigin?) -> BridgeError? {
        let scheme = url.scheme?.lowercased()
        let allowed =
            scheme == "http" || scheme == "https"
            || (scheme != nil && scheme == sender?.scheme.lowercased()
                && !Self.schemesWithoutOrigin.contains(scheme ?? ""))
        guard allowed else {
            return BridgeError(
                code: "invalid_options",
                message: "A history notice's URL must be http, https or the page's own scheme.",
                details: ["path": "url", "reason": "scheme_not_allowed"])
        }
        guard url.user(percentEncoded: true) == nil, url.password(percentEncoded: true) == nil else {
            return BridgeError(
                code: "invalid_options", message: "A history notice's URL must not carry a user name or password.",
                details: ["path": "url", "reason": "credentials_not_allowed"])
        }
        guard let sender, let target = SecurityOrigin(url: url), target == sender else {
            return BridgeError(
                code: "invalid_options",
                message: "A history notice's URL must be same-origin with the frame that sent it.",
                details: ["path": "url", "reason": "not_same_origin"])
        }
        return nil
    }
}
