#if WebKitGTK
import BridgeKit
import CWebKitGTK
import Foundation
import Synchronization

/// Streams a response body to WebKit: the response's `GInputStream` is the read end of a Unix
/// socket pair (`g_unix_input_stream_new`), and the pump writes the body's chunks into the other
/// end from the GTK main loop, without a thread of its own: it reads a chunk (`BinaryBodyReader`,
/// off the GTK thread), asks the view's ``GTKDeliveryGate`` for room, and writes it when the socket
/// has room (non-blocking, a `g_unix_fd_add` watch). The one way both schemes stream a body: the
/// byte transport's downloads (``GTKBinaryScheme``) and the app's files (``GTKAssetURIScheme``).
///
/// - Native holds about one chunk of each body at a time, and WebKit at most the gate's budget of a
///   view's bodies (it reads a scheme's stream as fast as it is given and queues it for the web
///   process without back pressure).
/// - When the page aborts or goes away, WebKit closes its end: the pump sees the hang-up (also
///   while it waits for a chunk or for room) and cancels the body.
/// - A body that fails (its reader throws: native ended the stream, the file shrank) fails
///   WebKit's read, so the page's load or fetch fails instead of seeing a short body that looks
///   complete.
///
/// Thread: GTK thread, apart from the body's reads.
final class GTKResponsePump: Sendable {
    private enum Phase {
        /// Waiting for the body's next chunk.
        case reading
        /// Waiting for the gate's room for `chunk` (request `id`, once known).
        case admitting(chunk: Data, id: Int?)
        /// Writing `chunk` from `offset`.
        case writing(chunk: Data, offset: Int)
        /// Done: the body ended, failed or was cancelled, and the writer is closed.
        case ended
    }

    private struct State {
        var phase = Phase.reading
        /// The `g_unix_fd_add` source watching the writer; 0 when none.
        var watch: guint = 0
    }

    private let body: any BinaryBodyReader
    private let writer: Int32
    private let chunkBytes: Int
    private let gate: GTKDeliveryGate?
    private let onEnd: (@Sendable () -> Void)?
    /// Touched on the GTK thread only; a lock so that the class is plainly `Sendable`.
    private let state = Mutex(State())

    private init(
        body: any BinaryBodyReader, writer: Int32, chunkBytes: Int, gate: GTKDeliveryGate?,
        onEnd: (@Sendable () -> Void)?
    ) {
        self.body = body
        self.writer = writer
        self.chunkBytes = chunkBytes
        self.gate = gate
        self.onEnd = onEnd
    }

    /// Finishes `request` with a streamed body and starts writing it (GTK thread).
    /// - Parameters:
    ///   - status: the HTTP status; `headers` the response's headers.
    ///   - length: the body's length in bytes (`Content-Length`), or nil when unknown.
    ///   - body: the body, read at most `chunkBytes` at a time.
    ///   - gate: the view's flow control; nil when the request has no view.
    ///   - onEnd: runs once on the GTK thread when the body ended, failed or was cancelled (or at
    ///     once when no socket could be made).
    /// - Returns: the pump, for ``stop()``; nil when no socket could be made.
    @discardableResult
    static func start(
        _ request: GPointer<WebKitURISchemeRequest>, status: Int, headers: [String: String], length: Int64?,
        body: any BinaryBodyReader, chunkBytes: Int, gate: GTKDeliveryGate?, onEnd: (@Sendable () -> Void)? = nil
    ) -> GTKResponsePump? {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            body.cancel()
            GTKSchemeResponse.finish(
                request, status: 503, headers: ["Content-Type": "application/json"],
                data: Data("{\"code\":\"unavailable\"}".utf8))
            onEnd?()
            return nil
        }
        var buffer = Int32(min(4 << 20, max(256 << 10, 2 * chunkBytes)))
        _ = setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        // One byte in the writer's own receive queue: closing the writer while it is still there
        // makes the reader's next read fail with ECONNRESET (Linux `unix_release_sock`) once the
        // bytes already sent were read, instead of a clean end. Drained before a clean close.
        var marker: UInt8 = 0
        _ = send(fds[0], &marker, 1, Int32(MSG_NOSIGNAL))
        let stream = g_unix_input_stream_new(fds[0], 1)
        GTKSchemeResponse.finish(request, status: status, headers: headers, stream: stream, length: length ?? -1)
        let pump = GTKResponsePump(
            body: body, writer: fds[1], chunkBytes: max(1, chunkBytes), gate: gate, onEnd: onEnd)
        pump.readNext()
        return pump
    }

    /// Ends the body now, as a cancelled one (GTK thread): for a view that is gone, whose WebKit
    /// request may never read or close its end. Nothing when it has ended already.
    func stop() {
        end(cleanly: false)
    }

    // MARK: Steps (GTK thread)

    /// Reads the body's next chunk off the GTK thread, watching for the reader's hang-up meanwhile.
    private func readNext() {
        state.withLock { $0.phase = .reading }
        watch(G_IO_HUP)
        let body = body
        let maxBytes = chunkBytes
        Task.detached {
            let result: Result<Data?, any Error>
            do {
                result = .success(try await body.read(maxBytes: maxBytes))
            } catch {
                result = .failure(error)
            }
            GTKThread.post { self.received(result) }
        }
    }

    private func received(_ result: Result<Data?, any Error>) {
        guard case .reading = state.withLock({ $0.phase }) else { return }
        switch result {
        case .success(.some(let chunk)) where !chunk.isEmpty:
            admit(chunk)
        case .success:
            end(cleanly: true)
        case .failure:
            end(cleanly: false)
        }
    }

    /// Asks the gate for room for `chunk`; writes it once there is.
    private func admit(_ chunk: Data) {
        state.withLock { $0.phase = .admitting(chunk: chunk, id: nil) }
        guard let gate else { return admitted() }
        let id = gate.admit(chunk.count) { self.admitted() }
        state.withLock { state in
            if case .admitting(let chunk, nil) = state.phase { state.phase = .admitting(chunk: chunk, id: id) }
        }
    }

    private func admitted() {
        let chunk: Data? = state.withLock { state in
            guard case .admitting(let chunk, _) = state.phase else { return nil }
            state.phase = .writing(chunk: chunk, offset: 0)
            return chunk
        }
        if chunk != nil { write() }
    }

    /// Writes as much of the chunk as the socket takes; waits for room for the rest.
    private func write() {
        guard case .writing(let chunk, var offset) = state.withLock({ $0.phase }) else { return }
        while offset < chunk.count {
            let sent = chunk.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(writer, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent >= 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                state.withLock { $0.phase = .writing(chunk: chunk, offset: offset) }
                watch(GIOCondition(G_IO_OUT.rawValue | G_IO_HUP.rawValue))
                return
            default:
                // EPIPE or ECONNRESET: WebKit closed its end (the page aborted or went away).
                return end(cleanly: false)
            }
        }
        readNext()
    }

    /// The writer's watch fired.
    fileprivate func watchFired(_ condition: GIOCondition) {
        state.withLock { $0.watch = 0 }
        if condition.rawValue & (G_IO_HUP.rawValue | G_IO_ERR.rawValue | G_IO_NVAL.rawValue) != 0 {
            return end(cleanly: false)
        }
        write()
    }

    /// Ends the body: a clean end lets WebKit read to the end of the stream; otherwise WebKit's
    /// read fails and the body is cancelled.
    private func end(cleanly: Bool) {
        let previous: Phase = state.withLock { state in
            let previous = state.phase
            state.phase = .ended
            return previous
        }
        if case .ended = previous { return }
        watch(nil)
        if case .admitting(_, let id?) = previous { gate?.withdraw(id) }
        if cleanly {
            var byte: UInt8 = 0
            _ = recv(writer, &byte, 1, Int32(MSG_DONTWAIT))
        } else {
            body.cancel()
        }
        close(writer)
        onEnd?()
    }

    /// Replaces the writer's watch with one for `condition` (nil: none).
    private func watch(_ condition: GIOCondition?) {
        let old = state.withLock { state in
            let old = state.watch
            state.watch = 0
            return old
        }
        if old != 0 { g_source_remove(old) }
        guard let condition else { return }
        let full = GIOCondition(condition.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        let id = g_unix_fd_add_full(
            G_PRIORITY_DEFAULT, writer, full, writerReady, Unmanaged.passRetained(self).toOpaque(), releasePump)
        state.withLock { $0.watch = id }
    }
}

/// `GUnixFDSourceFunc` of a pump's writer (GTK thread): one firing per watch.
private let writerReady: GUnixFDSourceFunc = { _, condition, data in
    guard let data else { return 0 }
    Unmanaged<GTKResponsePump>.fromOpaque(data).takeUnretainedValue().watchFired(condition)
    return 0  // G_SOURCE_REMOVE: the pump adds a new watch when it needs one
}

/// `GDestroyNotify` of a watch: the pump's retain.
private let releasePump: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
    guard let pointer else { return }
    Unmanaged<GTKResponsePump>.fromOpaque(pointer).release()
}
#endif
