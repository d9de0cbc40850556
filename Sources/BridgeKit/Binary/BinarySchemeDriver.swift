import Foundation

/// Drives engine scheme tasks (``BinarySchemeTask``) through ``BinaryTransfers``: the logic of
/// the Apple `WKURLSchemeHandler` glue (`WebKitBinarySchemeHandler`), platform-neutral and tested
/// on Linux.
///
/// Each task is answered exactly once (head, chunks, then finish, or fail when the body's source
/// throws mid-body) unless the engine stops it first
/// (``stop(_:)``): then nothing more is sent to it and its download body is cancelled, which ends
/// the transfer (cancelled). A download's chunks are read one at a time, as the driver sends them.
///
/// Thread: main actor (WebKit calls scheme handlers there).
@MainActor
public final class BinarySchemeDriver {
    private let transfers: BinaryTransfers
    /// Running tasks and their download bodies, once known.
    private var running: [ObjectIdentifier: (any BinaryBodyReader)?] = [:]

    /// Creates a driver for `transfers`.
    public init(transfers: BinaryTransfers) {
        self.transfers = transfers
        transfers.noteServed()
    }

    /// The tasks started and not yet finished or stopped.
    public var runningCount: Int { running.count }

    /// Starts answering `task`.
    public func start(_ task: some BinarySchemeTask) {
        start(task, gate: nil)
    }

    /// Starts answering `task`, sending each chunk of a download once `gate` (the web view's flow
    /// control) admits it.
    package func start(_ task: some BinarySchemeTask, gate: DeliveryGate?) {
        let id = ObjectIdentifier(task)
        running[id] = .some(nil)
        let request = BinaryRequest(
            method: task.method, url: task.url, origin: task.origin, body: task.body.map { DataBodyReader($0) })
        let transfers = transfers
        Task { @MainActor [weak self] in
            let response = await transfers.handle(request)
            guard let self, self.running[id] != nil else {
                response.body.cancel()
                return
            }
            self.running[id] = .some(response.body)
            task.respond(status: response.status, headers: response.headers)
            while true {
                let chunk: Data?
                do {
                    chunk = try await response.body.read(maxBytes: transfers.limits.chunkBytes)
                } catch {
                    guard self.running.removeValue(forKey: id) != nil else { return }
                    task.fail(error)
                    return
                }
                guard self.running[id] != nil else { return }
                guard let chunk else { break }
                if let gate {
                    await gate.admit(chunk.count)
                    guard self.running[id] != nil else { return }
                }
                task.send(chunk)
            }
            self.running[id] = nil
            task.finish()
        }
    }

    /// The engine stopped `task` (the page aborted, the view went away): nothing more is sent to it.
    public func stop(_ task: some BinarySchemeTask) {
        let id = ObjectIdentifier(task)
        guard let body = running.removeValue(forKey: id) else { return }
        body?.cancel()
    }
}
