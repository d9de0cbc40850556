#if WebKitGTK
import BridgeKit
import CWebKitGTK
import Foundation

/// Streams a download's body to WebKit: the response's `GInputStream` is the read end of a Unix
/// socket pair (`g_unix_input_stream_new`), and a thread of its own writes the body's chunks into
/// the other end as WebKit reads. The socket's buffer is the only copy in flight, so native holds
/// about one chunk at a time; when the page aborts, WebKit closes its end, the next write fails
/// (`EPIPE`, without a signal: `MSG_NOSIGNAL`) and the body is cancelled. A body that fails (its
/// reader throws: native ended the stream, the transfers closed) fails WebKit's read, so the page's
/// fetch errors (`unavailable`) instead of seeing a short body.
enum GTKResponsePump {
    /// Finishes `request` with a streamed body and starts writing it (GTK thread), reading the
    /// body at most `chunkBytes` at a time (``BinaryLimits/chunkBytes``).
    static func start(_ request: GPointer<WebKitURISchemeRequest>, response: BinaryResponse, chunkBytes: Int) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            response.body.cancel()
            GTKSchemeResponse.finish(
                request, status: 503, headers: response.headers, data: Data("{\"code\":\"unavailable\"}".utf8))
            return
        }
        var buffer: Int32 = 4 << 20
        _ = setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        // One byte in the writer's own receive queue: closing the writer while it is still there
        // makes the reader's next read fail with ECONNRESET (Linux `unix_release_sock`) once the
        // bytes already sent were read, instead of a clean end. Drained before a clean close.
        var marker: UInt8 = 0
        _ = send(fds[0], &marker, 1, Int32(MSG_NOSIGNAL))
        let stream = g_unix_input_stream_new(fds[0], 1)
        GTKSchemeResponse.finish(
            request, status: response.status, headers: response.headers, stream: stream,
            length: Int64(response.contentLength ?? -1))
        let body = response.body
        let writer = fds[1]
        let thread = Thread {
            if pump(body, to: writer, chunkBytes: chunkBytes) {
                var byte: UInt8 = 0
                _ = recv(writer, &byte, 1, Int32(MSG_DONTWAIT))
            }
            close(writer)
        }
        thread.name = "bridgekit.binary.download"
        thread.start()
    }

    /// Copies `body` into `fd` until its end, an error, or the reader going away.
    /// - Returns: true when the body ended cleanly (all of it was written).
    private static func pump(_ body: any BinaryBodyReader, to fd: Int32, chunkBytes: Int) -> Bool {
        while true {
            let chunk: Data
            switch next(body, maxBytes: chunkBytes, writingTo: fd) {
            case .chunk(let data): chunk = data
            case .end: return true
            case .failed: return false
            }
            let written = chunk.withUnsafeBytes { raw -> Bool in
                guard let base = raw.baseAddress else { return true }
                var offset = 0
                while offset < raw.count {
                    let n = send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    if n < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += n
                }
                return true
            }
            if !written {
                body.cancel()
                return false
            }
        }
    }

    /// One step of a body: a chunk, its end, or its failure.
    private enum Step {
        case chunk(Data)
        case end
        case failed
    }

    /// The body's next step, waited for on this thread. While it waits (a source that is slow to
    /// give its next chunk), WebKit closing its end of `fd` (the page aborted or went away) cancels
    /// the body at once, instead of when the next chunk would be written.
    private static func next(_ body: any BinaryBodyReader, maxBytes: Int, writingTo fd: Int32) -> Step {
        let box = ChunkBox()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                box.step = try await body.read(maxBytes: maxBytes).map { .chunk($0) } ?? .end
            } catch {
                box.step = .failed
            }
            done.signal()
        }
        var cancelled = false
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if !cancelled, readerClosed(fd) {
                cancelled = true
                body.cancel()
            }
        }
        return cancelled ? .failed : box.step
    }

    /// Whether the reading end of the socket pair `fd` belongs to was closed (`POLLHUP`: Linux sets
    /// it on a stream socket whose peer is gone).
    private static func readerClosed(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: 0, revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        return entry.revents & Int16(POLLHUP | POLLERR) != 0
    }

    private final class ChunkBox: @unchecked Sendable {
        var step = Step.failed
    }
}
#endif
