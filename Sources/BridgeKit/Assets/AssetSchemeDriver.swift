import Foundation

/// Answers asset scheme requests (``AssetSchemeTask``) with the files of an ``AssetFolder``: the
/// logic of the Apple `WKURLSchemeHandler` glue (`WebKitAssetSchemeHandler`), platform-neutral and
/// tested on Linux (`AssetSchemeDriverTests`).
///
/// Each task is answered at most once: a refusal (status, a one-line text, finish), or the file's
/// head (`200`, `Content-Type`, `Content-Length`, `X-Content-Type-Options: nosniff`), its bytes in
/// chunks of at most ``chunkBytes``, then finish; or fail, when the file cannot be read to the
/// length announced. When the engine stops a task first (``stop(_:)``), nothing more is sent to it
/// and its file is closed. Exactly the announced length is sent: a file that grew since it was
/// opened is cut there, one that shrank fails the task.
///
/// Files are opened and read off the main actor, on one serial queue of the driver, one chunk at a
/// time: the next chunk is read only once the engine took the previous one, so a large file is
/// never held in memory whole. With a ``DeliveryGate`` (one per web view), a chunk goes to the
/// engine only once the gate admits it: the engine queues a scheme's body for its web process
/// without back pressure, so a page fetching large files would otherwise fill the app's memory.
///
/// Thread: main actor (WebKit calls scheme handlers there).
@MainActor
package final class AssetSchemeDriver {
    /// The folder served.
    package let folder: AssetFolder
    /// The largest chunk of a file sent at once, in bytes.
    package let chunkBytes: Int
    /// How many tasks may have their file open and their answer unfinished at once; later ones
    /// wait, first come first, before their file is opened (``AssetFileSlots``).
    package var maxOpen: Int { slots.limit }
    /// The tasks holding a slot, and the starts of those waiting for one.
    private var slots: AssetFileSlots<() -> Void>
    /// Where files are opened and read: blocking calls, off the main actor and off Swift's
    /// cooperative threads.
    private let files = DispatchQueue(label: "BridgeKit.asset-files", qos: .userInitiated)
    /// The tasks started and not yet answered or stopped.
    private var running: Set<ObjectIdentifier> = []
    /// Tasks whose file work has not ended yet (for ``settled()``).
    private var working = 0
    private var settledWaiters: [CheckedContinuation<Void, Never>] = []

    /// How many files were opened to be served (for tests: a refused request opens none).
    package private(set) var filesOpened = 0
    /// How many of them were closed (for tests: every opened file is closed, also when stopped).
    package private(set) var filesClosed = 0

    /// Creates a driver for `folder`.
    /// - Parameters:
    ///   - folder: the folder served.
    ///   - chunkBytes: the largest chunk sent at once; default 64 KiB (at least 1).
    ///   - maxOpen: how many tasks may have their file open at once; default
    ///     ``AssetFileSlots/defaultLimit`` (at least 1).
    package init(folder: AssetFolder, chunkBytes: Int = 64 * 1024, maxOpen: Int = AssetFileSlots<Void>.defaultLimit) {
        self.folder = folder
        self.chunkBytes = max(1, chunkBytes)
        self.slots = AssetFileSlots(limit: maxOpen)
    }

    /// The tasks started and not yet answered or stopped.
    package var runningCount: Int { running.count }

    /// Starts answering `task`: refusals at once, a file once it is opened off the main actor.
    /// - Parameters:
    ///   - task: the request.
    ///   - viewURL: the URL of the web view's main document (shown or being loaded: `WKWebView.url`);
    ///     files are served only while it is of the folder's origin (``AssetPath/servesView(at:scheme:host:)``).
    ///   - gate: the web view's flow control: each chunk is sent only once it admits it; nil sends
    ///     chunks as they are read.
    package func start(_ task: some AssetSchemeTask, viewURL: String?, gate: DeliveryGate? = nil) {
        let scheme = folder.scheme
        let host = folder.host
        guard task.method == "GET" else { return refuse(task, .methodNotAllowed) }
        guard AssetPath.accepts(origin: task.origin, scheme: scheme, host: host),
            AssetPath.servesView(at: viewURL, scheme: scheme, host: host)
        else { return refuse(task, .forbidden) }
        let components: [String]
        switch AssetPath.components(ofURI: task.url, scheme: scheme, host: host) {
        case .success(let found): components = found
        case .failure(let refusal): return refuse(task, refusal)
        }
        let id = ObjectIdentifier(task)
        running.insert(id)
        working += 1
        let begin: () -> Void = {
            Task { @MainActor in
                await self.serve(task, id: id, components: components, gate: gate)
                self.slots.release()?()
                self.workEnded()
            }
        }
        slots.acquire(begin)?()
    }

    /// The engine stopped `task` (the page went away, the load was cancelled): nothing more is
    /// sent to it; its file is closed once a read in progress returns.
    package func stop(_ task: some AssetSchemeTask) {
        running.remove(ObjectIdentifier(task))
    }

    /// Returns once no task's file work is left (every started file opened, read and closed, or
    /// dropped after a stop). For tests, instead of waiting for a time.
    package func settled() async {
        guard working > 0 else { return }
        await withCheckedContinuation { settledWaiters.append($0) }
    }

    /// Opens the file, sends its head and chunks, and closes it.
    private func serve(
        _ task: some AssetSchemeTask, id: ObjectIdentifier, components: [String], gate: DeliveryGate?
    ) async {
        guard running.contains(id) else { return }  // stopped while it waited for a slot
        let root = folder.rootPath
        let opened = await onFiles { AssetFile.open(components, root: root) }
        let file: AssetFile.Opened
        switch opened {
        case .success(let found):
            filesOpened += 1
            file = found
        case .failure(let refusal):
            if running.remove(id) != nil { refuse(task, refusal) }
            return
        }
        defer { close(file) }
        guard running.contains(id) else { return }
        let type = AssetPath.contentType(forName: components.last ?? "")
        task.respond(status: 200, headers: AssetPath.headers(contentType: type, length: file.size))
        var remaining = file.size
        let chunkBytes = chunkBytes
        while remaining > 0 {
            // The engine may stop the task from inside `respond` or `send`, or while a read runs.
            guard running.contains(id) else { return }
            let want = Int(min(Int64(chunkBytes), remaining))
            let read = await onFiles { AssetFile.read(file, maxBytes: want) }
            guard running.contains(id) else { return }
            switch read {
            case .success(let data) where !data.isEmpty:
                remaining -= Int64(data.count)
                if let gate {
                    await gate.admit(data.count)
                    guard running.contains(id) else { return }
                }
                task.send(data)
            case .success:
                // The file is shorter than when it was opened: the announced length cannot be sent.
                running.remove(id)
                task.fail(POSIXError(.EIO))
                return
            case .failure(let error):
                running.remove(id)
                task.fail(error)
                return
            }
        }
        guard running.remove(id) != nil else { return }
        task.finish()
    }

    /// Answers `task` with `refusal`'s status and one-line text.
    private func refuse(_ task: some AssetSchemeTask, _ refusal: AssetPath.Refusal) {
        let body = Data(refusal.text.utf8)
        task.respond(
            status: refusal.status,
            headers: AssetPath.headers(contentType: "text/plain; charset=utf-8", length: Int64(body.count)))
        task.send(body)
        task.finish()
    }

    private func close(_ file: AssetFile.Opened) {
        AssetFile.close(file)
        filesClosed += 1
    }

    private func workEnded() {
        working -= 1
        guard working == 0 else { return }
        let waiters = settledWaiters
        settledWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `work` on the files queue.
    private func onFiles<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        let queue = files
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
