import Foundation

/// The byte transport's policy and bookkeeping for one router's page: binary values between the
/// page and native tasks without base64, both ways, streamed in chunks (docs/protocol.md,
/// "Binary values"; docs/architecture.md, "Binary values").
///
/// Platform-neutral: the engine glue (a custom URL scheme, `webbridge-binary:`; WebKitGTK:
/// `WebKitGTKBridgeHost.binaryTransfers`; Apple: `WebKitBinarySchemeHandler`) turns each page request into a
/// ``BinaryRequest`` and hands it to ``handle(_:)``; everything that decides lives here.
///
/// **Binding.** A byte request carries no frame and no page generation, so it is only ever bound
/// to a call admitted over the checked channel (relay-stamped origin, main frame, current page
/// generation): an upload's token is claimed by the call's task (``upload(of:context:)``), a
/// download's token is issued for the call (``send(_:type:context:)``). A request is served only
/// when its token names such a transfer, its `Origin` header equals the call's origin, the call
/// came from the main frame, and the page generation is still the call's. Each token is used
/// once; tokens of an earlier document are dead (HTTP 410).
///
/// Thread-safe; every method may be called from any thread.
public final class BinaryTransfers: Sendable {
    /// The custom URL scheme of the byte transport.
    public static let scheme = "webbridge-binary"
    /// The reserved event name under which native announces the tokens of downloads offered with
    /// no pending call to the page's shim (a call's own ride its next progress or reply, in the
    /// envelope's `binary` member); never delivered to the page's listeners.
    public static let announcementEvent = "webbridge.binary"

    /// The limits in force.
    public let limits: BinaryLimits

    let state: Locked<State>
    private let observer: Locked<(@Sendable (BinaryTransferRecord) -> Void)?>
    private let routerReference: RouterReference
    /// The id of this object's generation observer at the router (set once, by `init`).
    private let generationObserverID: Locked<Int?>
    /// Whether a web view's byte transport was ever given these transfers (``noteServed()``), and
    /// whether the hint that none was has been written.
    private let serving = Locked((isServed: false, hinted: false))

    /// Creates the transfers of `router`'s page. They follow the router's page generations by
    /// themselves: when a document commits (``BridgeRouter/pageDidCommitNavigation()``, whichever
    /// host reports it), the old document's transfers end at once. From now on, plain `Data` in a
    /// call's result or progress reaches the page as a `Uint8Array` through them, as a value from
    /// ``send(_:type:context:)`` does (the latest transfers made for a router are the ones used).
    /// - Parameters:
    ///   - router: the router whose calls own the transfers; held weakly, read for its page generation.
    ///   - limits: the byte transport's limits.
    public init(router: BridgeRouter, limits: BinaryLimits = BinaryLimits()) {
        self.limits = limits
        routerReference = RouterReference(router)
        state = Locked(State())
        observer = Locked(nil)
        generationObserverID = Locked(nil)
        let id = router.addGenerationObserver { [weak self] in self?.pageDidCommitNavigation() }
        generationObserverID.withLock { $0 = id }
        router.binaryOutlet.attach(self)
    }

    deinit {
        if let id = generationObserverID.withLock({ $0 }) { router?.removeGenerationObserver(id) }
    }

    /// Called once for every transfer that ends (finished, failed, cancelled), on any thread.
    /// For logs and tests; keep it short.
    public func setTransferObserver(_ body: (@Sendable (BinaryTransferRecord) -> Void)?) {
        observer.withLock { $0 = body }
    }

    /// The bytes held for downloads not ended yet (a chunk stream counts one chunk, ``BinaryLimits/maxHeldBytes``).
    public var heldBytes: Int { state.withLock { $0.heldBytes } }

    /// The transfers not ended yet (claimed uploads, offered downloads).
    public var openTransfers: Int { state.withLock { $0.uploads.count + $0.offers.count } }

    /// How many times the transfers passed over every open transfer to end those that were due
    /// (``sweep(now:)``). For tests: it grows with navigations and offer lifetimes, not with requests.
    package var fullSweeps: Int { state.withLock { $0.fullSweeps } }

    /// The wait timers running now: one for each page request waiting for its call to claim its
    /// token (``BinaryLimits/requestWait``) and one for each task waiting for the page's next
    /// body (``BinaryLimits/claimWait``). A timer ends with its wait, so this is 0 when nothing
    /// waits (the offer expiry's one timer is not counted). For diagnostics and tests.
    public var waitTimers: Int { state.withLock { $0.waitTimers } }

    var router: BridgeRouter? { routerReference.router }

    /// Whether ``close()`` ran: every transfer ends, also a download being read.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether `generation` is the router's current page generation (false once the router is gone).
    func isCurrent(_ generation: UInt64) -> Bool {
        guard let router else { return false }
        return router.pageGeneration == generation
    }

    func report(_ record: BinaryTransferRecord) {
        observer.withLock { $0 }?(record)
    }

    /// Ends every transfer of an earlier page generation (cancelled). The transfers call it
    /// themselves whenever their router starts a new page generation; calling it again does
    /// nothing more. Transfers check the generation on every chunk anyway.
    public func pageDidCommitNavigation() {
        sweep(now: Self.now())
    }

    /// Ends every transfer (cancelled) and refuses new ones: the web view is closing.
    public func close() {
        let ended = state.withLock { s -> ([String], [String]) in
            s.closed = true
            return (Array(s.uploads.keys), Array(s.offers.keys))
        }
        for token in ended.0 { endUpload(token, .cancelled) }
        for token in ended.1 { endOffer(token, .cancelled, bytes: 0) }
        wakeWaitingRequests(all: true)
    }

    /// Answers one page request of the byte transport: an upload body (`POST`), a download
    /// (`GET`), a CORS preflight (`OPTIONS`). Returns when the upload was consumed or refused, or
    /// when the download may start streaming (``BinaryResponse/body``).
    /// - Parameter request: the request as the engine glue read it.
    /// - Returns: the response; never throws (refusals are statuses, see ``BinaryResponse/status``).
    public func handle(_ request: BinaryRequest) async -> BinaryResponse {
        sweep(now: Self.now())
        switch request.method.uppercased() {
        case "OPTIONS":
            var headers = ["Access-Control-Allow-Methods": "GET, POST", "Access-Control-Max-Age": "600"]
            if let origin = request.origin { headers["Access-Control-Allow-Origin"] = origin }
            return BinaryResponse(status: 204, headers: headers, body: DataBodyReader(Data()), contentLength: 0)
        case "POST", "PUT":
            return await handleUpload(request)
        case "GET":
            return handleDownload(request)
        default:
            request.body?.cancel()
            return .plain(405, code: "invalid_message", origin: request.origin)
        }
    }

    /// The router's current page generation is `generation`, the source is a main frame with an
    /// origin, the call has an id: the conditions for a transfer.
    /// - Throws: ``BridgeError``: `forbidden` (subframe, no origin), `navigated`, `unavailable` (closed).
    func checkCall(_ context: CallContext) throws(BridgeError) -> String {
        hintIfUnserved()
        guard context.source.isMainFrame else {
            throw .forbidden(reason: "subframe", origin: context.source.origin?.description)
        }
        guard let origin = context.source.origin else { throw .forbidden(reason: "no_origin", origin: nil) }
        guard isCurrent(context.pageGeneration) else { throw .navigated() }
        guard !state.withLock({ $0.closed }) else { throw .unavailable("The web view was closed.") }
        return origin.description
    }

    /// Notes that a web view's byte transport hands its requests to these transfers: WebKitGTK's
    /// `WebKitGTKBridgeHost.binaryTransfers`, Apple's `WebKitBinarySchemeHandler` (through
    /// ``BinarySchemeDriver``), a test's in-memory transport. Until then plain `Data` in a result
    /// stays base64 text (``BinaryOutlet``), and the first value a task sends or takes writes a
    /// line on standard error (``hintIfUnserved()``).
    package func noteServed() {
        serving.withLock { $0.isServed = true }
    }

    /// Whether a web view's byte transport was ever given these transfers (``noteServed()``).
    package var isServed: Bool { serving.withLock { $0.isServed } }

    /// Writes, once, a line on standard error when a task sends or takes a binary value and no
    /// web view serves these transfers. A new user created the transfers, passed them to their
    /// tasks and forgot the host: the page's request failed `unavailable` while the app's log
    /// said the reply went out `ok` (found by a new user's trial).
    private func hintIfUnserved() {
        let write = serving.withLock { serving in
            defer { serving.hinted = true }
            return !serving.isServed && !serving.hinted
        }
        guard write else { return }
        FileHandle.standardError.write(
            Data(
                ("BridgeKit: a task sent or took a binary value, but no web view serves these BinaryTransfers, so the "
                    + "page cannot reach its bytes (it gets `unavailable`). Give them to the view: "
                    + "host.binaryTransfers = transfers (WebKitGTKBridgeHost), or register "
                    + "WebKitBinarySchemeHandler(transfers:) for the \"\(Self.scheme)\" scheme (Apple).\n").utf8))
    }

    /// Ends transfers whose generation ended or whose offer expired. Passes over every transfer
    /// only when one may be due (the page generation changed, an idle offer's lifetime may have
    /// passed, or a transfer of another generation was added: ``State/nextExpiry``); otherwise it
    /// returns at once, so requests and offers cost the same however many transfers are open.
    func sweep(now: Double) {
        let generation = router?.pageGeneration
        let (uploads, offers) = state.withLock { s -> ([String], [String]) in
            guard generation != s.sweptGeneration || now >= s.nextExpiry else { return ([], []) }
            s.fullSweeps += 1
            let uploads = s.uploads.filter { $0.value.generation != generation }.map(\.key)
            var offers: [String] = []
            var nextExpiry = Double.infinity
            for (token, offer) in s.offers where offer.isIdle {
                if offer.generation != generation || offer.expires < now {
                    offers.append(token)
                } else {
                    nextExpiry = min(nextExpiry, offer.expires)
                }
            }
            s.sweptGeneration = generation
            s.nextExpiry = nextExpiry
            return (uploads, offers)
        }
        for token in uploads { endUpload(token, .failed("navigated")) }
        for token in offers { endOffer(token, .cancelled, bytes: 0) }
    }

    /// Seconds on a monotonic clock.
    static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}

/// A weak reference to the router, fixed at creation.
final class RouterReference: Sendable {
    private let reference: Locked<Weak>
    private struct Weak { weak var router: BridgeRouter? }

    init(_ router: BridgeRouter) {
        reference = Locked(Weak(router: router))
    }

    var router: BridgeRouter? { reference.withLock { $0.router } }
}
