#if WebKitGTK
import BridgeKit
import CWebKitGTK
import Foundation
import Synchronization

/// The WebKitGTK side of ``GTKAssetURIScheme``: registers the scheme on a web context and answers
/// its requests with the files of the view's directory. What is served is decided by
/// `AssetPath` (the URI) and `AssetFile` (the file system), BridgeKit's rules shared with the
/// Apple handler; this only moves requests and bytes between WebKit and them.
///
/// A scheme is registered once per web context (a context may be shared by views), and each view
/// carries its own ``GTKAssetURIScheme`` as GObject data, released with the view: a request is
/// answered from the directory of the view it came from, and a view without one (another view of a
/// shared context) gets 404.
///
/// Threads: registration and the scheme callback run on the GTK thread; the file is opened and
/// read on a serial dispatch queue; the response is finished on the GTK thread. A file of up to
/// 64 KiB is read whole and answered from memory; a larger one is streamed in chunks of 64 KiB by
/// a ``GTKResponsePump``, never read whole into memory. Either way its bytes go to WebKit only as
/// the view's ``GTKDeliveryGate`` makes room: WebKit queues a scheme's body for the web process
/// as fast as it is given, so a page fetching large files would otherwise fill the app's memory
/// and hold up its own navigation behind the queued bytes.
enum GTKAssetSchemeHandler {
    /// Where files are opened: blocking calls, kept off the GTK thread and off Swift's cooperative
    /// threads; one at a time (each is a `realpath`, an `open` and an `fstat`).
    private static let files = DispatchQueue(label: "BridgeKitGTK.asset-files", qos: .userInitiated)

    /// The largest chunk of a file handed to WebKit at once, in bytes; a file no larger is read
    /// whole and answered from memory.
    private static let chunkBytes: Int64 = 64 * 1024

    /// How many files have been opened to be served, in this process (for tests: a refused request
    /// opens none).
    static let filesOpened = Atomic<Int>(0)

    /// The GObject data key of a view's ``GTKAssetURIScheme`` (a retained ``Box``).
    private static let viewKey = "bridgekit-asset-scheme"

    /// A view's scheme, as GObject data, with the view's open requests.
    private final class Box: Sendable {
        let assets: GTKAssetURIScheme
        /// The requests that have their file open and their answer not yet finished, and the
        /// starts of those that wait for one of the `AssetFileSlots.defaultLimit` slots. Each
        /// open request holds a descriptor of the file and, streamed, two of a socket pair, and
        /// its chunk.
        private let slots = Mutex(AssetFileSlots<@Sendable () -> Void>())

        /// The pumps streaming the view's files, and whether the view is gone (GTK thread).
        private let live = Mutex<(isGone: Bool, pumps: [ObjectIdentifier: GTKResponsePump])>((false, [:]))

        init(_ assets: GTKAssetURIScheme) { self.assets = assets }

        /// Runs `start` once a slot is free (at once when one is); `start` gets the slot's
        /// release, to call once when its request's answer is finished.
        func acquire(_ start: @escaping @Sendable (_ release: @escaping @Sendable () -> Void) -> Void) {
            let release: @Sendable () -> Void = { self.slots.withLock { $0.release() }?() }
            slots.withLock { $0.acquire { start(release) } }?()
        }

        /// Whether the view was finalized: its waiting requests are answered at once, unread.
        var isGone: Bool { live.withLock { $0.isGone } }

        /// Keeps `pump` until it ends (``untrack(_:)``); stops it at once when the view is gone.
        func track(_ pump: GTKResponsePump) {
            let gone = live.withLock { live in
                if !live.isGone { live.pumps[ObjectIdentifier(pump)] = pump }
                return live.isGone
            }
            if gone { pump.stop() }
        }

        func untrack(_ pump: GTKResponsePump) {
            _ = live.withLock { $0.pumps.removeValue(forKey: ObjectIdentifier(pump)) }
        }

        /// The view was finalized (GTK thread): stops every pump of its files. WebKit may keep the
        /// read end of a request's stream open after its view is gone, and a pump that waits for
        /// room or for the gate would then hold its file open for ever (attack 18: 32 files left
        /// open after twelve views were closed mid-stream).
        func viewGone() {
            let pumps = live.withLock { live in
                live.isGone = true
                defer { live.pumps = [:] }
                return Array(live.pumps.values)
            }
            for pump in pumps { pump.stop() }
        }
    }

    /// Registers `assets`' scheme on `context` unless it already is (GTK thread, before a view of
    /// the context loads it): a handler, and secure. A handler alone gives the scheme's documents
    /// a tuple origin and makes them secure contexts, and WebKitGTK 2.50 treats the scheme as CORS
    /// enabled (another origin's `fetch` reaches the handler with an `Origin` header, which
    /// `AssetPath.accepts(origin:scheme:host:)` refuses); the secure registration is what
    /// WebKitGTK documents for a scheme whose pages must count as secure (mixed content).
    static func register(_ assets: GTKAssetURIScheme, on context: UnsafeMutablePointer<WebKitWebContext>) {
        let object: UnsafeMutablePointer<GObject> = gCast(gRaw(context))
        let mark = "bridgekit-asset-scheme:" + assets.scheme
        guard g_object_get_data(object, mark) == nil else { return }
        g_object_set_data(object, mark, UnsafeMutableRawPointer(bitPattern: 1))
        webkit_web_context_register_uri_scheme(context, assets.scheme, callback, nil, nil)
        let security = webkit_web_context_get_security_manager(context)
        webkit_security_manager_register_uri_scheme_as_secure(security, assets.scheme)
    }

    /// Makes `view` answer the scheme's requests from `assets`' directory (GTK thread). The value
    /// lives as long as the view.
    static func attach(_ assets: GTKAssetURIScheme, to view: UnsafeMutablePointer<WebKitWebView>) {
        let box = Unmanaged.passRetained(Box(assets)).toOpaque()
        g_object_set_data_full(gCast(gRaw(view)), viewKey, box, release)
    }

    /// `GDestroyNotify` of a view's ``Box``.
    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        guard let pointer else { return }
        let box = Unmanaged<Box>.fromOpaque(pointer)
        box.takeUnretainedValue().viewGone()
        box.release()
    }

    /// `WebKitURISchemeRequestCallback` (GTK thread).
    private static let callback:
        @convention(c) (UnsafeMutablePointer<WebKitURISchemeRequest>?, UnsafeMutableRawPointer?) -> Void = {
            request, _ in
            guard let request else { return }
            GTKAssetSchemeHandler.handle(GPointer(request))
        }

    /// Answers one request (GTK thread): refusals at once, files once opened off this thread.
    private static func handle(_ request: GPointer<WebKitURISchemeRequest>) {
        let raw = request.pointer
        guard let view = webkit_uri_scheme_request_get_web_view(raw),
            let box = g_object_get_data(gCast(gRaw(view)), viewKey)
        else {
            refuse(request, .notFound)
            return
        }
        let viewBox = Unmanaged<Box>.fromOpaque(box).takeUnretainedValue()
        let assets = viewBox.assets
        let method = gString(webkit_uri_scheme_request_get_http_method(raw)) ?? "GET"
        let uri = gString(webkit_uri_scheme_request_get_uri(raw)) ?? ""
        guard method == "GET" else {
            refuse(request, .methodNotAllowed)
            return
        }
        var origin: String?
        if let headers = webkit_uri_scheme_request_get_http_headers(raw) {
            origin = gString(soup_message_headers_get_one(headers, "Origin"))
        }
        guard AssetPath.accepts(origin: origin, scheme: assets.scheme, host: assets.host),
            AssetPath.servesView(
                at: gString(webkit_web_view_get_uri(view)), scheme: assets.scheme, host: assets.host)
        else {
            refuse(request, .forbidden)
            return
        }
        let components: [String]
        switch AssetPath.components(ofURI: uri, scheme: assets.scheme, host: assets.host) {
        case .success(let found): components = found
        case .failure(let refusal):
            refuse(request, refusal)
            return
        }
        g_object_ref(request.raw)
        let root = assets.rootPath
        let gate = GTKDeliveryGate.of(view)
        viewBox.acquire { release in
            let done: @Sendable () -> Void = {
                g_object_unref(request.raw)
                release()
            }
            guard !viewBox.isGone else {
                refuse(request, .notFound)
                return done()
            }
            serve(request, components: components, root: root, gate: gate, box: viewBox, done: done)
        }
    }

    /// Opens the file `components` names under `root` and answers `request` with it, off the GTK
    /// thread and then on it; `done` runs once (GTK thread) when the answer is finished.
    private static func serve(
        _ request: GPointer<WebKitURISchemeRequest>, components: [String], root: String, gate: GTKDeliveryGate,
        box: Box, done: @escaping @Sendable () -> Void
    ) {
        let type = AssetPath.contentType(forName: components.last ?? "")
        files.async {
            let opened = AssetFile.open(components, root: root)
            if case .success = opened { filesOpened.add(1, ordering: .relaxed) }
            switch opened {
            case .success(let file) where file.size <= chunkBytes:
                // A small file is read whole here and answered from memory: no socket, one hop.
                let whole = AssetFile.readWhole(file)
                AssetFile.close(file)
                GTKThread.post {
                    switch whole {
                    case .success(let data):
                        gate.admit(data.count) {
                            GTKSchemeResponse.finish(
                                request, status: 200, headers: AssetPath.headers(contentType: type), data: data)
                            done()
                        }
                    case .failure:
                        refuse(request, .notFound)
                        done()
                    }
                }
            case .success(let file):
                let body = AssetFileBody(file, queue: files)
                GTKThread.post {
                    let ended = Mutex<GTKResponsePump?>(nil)
                    let pump = GTKResponsePump.start(
                        request, status: 200, headers: AssetPath.headers(contentType: type), length: file.size,
                        body: body, chunkBytes: Int(chunkBytes), gate: gate
                    ) {
                        // Taken out, so that the pump and this closure do not keep each other.
                        let pump = ended.withLock { pump in
                            defer { pump = nil }
                            return pump
                        }
                        if let pump { box.untrack(pump) }
                        done()
                    }
                    if let pump {
                        ended.withLock { $0 = pump }
                        box.track(pump)
                    }
                }
            case .failure(let refusal):
                GTKThread.post {
                    refuse(request, refusal)
                    done()
                }
            }
        }
    }

    /// Answers `request` with `refusal`'s status and a one-line text, in a later turn of the GTK
    /// main loop (``GTKSchemeResponse/finishLater(_:status:headers:data:)``).
    private static func refuse(_ request: GPointer<WebKitURISchemeRequest>, _ refusal: AssetPath.Refusal) {
        GTKSchemeResponse.finishLater(
            request, status: refusal.status, headers: AssetPath.headers(contentType: "text/plain; charset=utf-8"),
            data: Data(refusal.text.utf8))
    }
}
#endif
