#if WebKitGTK
import BridgeKit
import CWebKitGTK
import Foundation

/// Streams a download's body to WebKit: the response's `GInputStream` is the read end of a Unix
/// socket pair (`g_unix_input_stream_new`), and a thread of its own writes the body's chunks into
/// the other end as WebKit reads. The socket's buffer is the only copy in flight, so native holds
/// about one chunk at a time; when the page aborts, WebKit closes its end, the next write fails
/// (`EPIPE`, without a signal: `MSG_NOSIGNAL`) and the body is cancelled.
enum GTKResponsePump {
    /// Finishes `request` with a streamed body and starts writing it (GTK thread).
    static func start(_ request: GPointer<WebKitURISchemeRequest>, response: BinaryResponse) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            response.body.cancel()
            GTKBinaryScheme.finish(
                request, status: 503, headers: response.headers, data: Data("{\"code\":\"unavailable\"}".utf8))
            return
        }
        var buffer: Int32 = 4 << 20
        _ = setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        let stream = g_unix_input_stream_new(fds[0], 1)
        GTKBinaryScheme.respond(
            request, status: response.status, headers: response.headers, stream: stream,
            length: Int64(response.contentLength ?? -1))
        let body = response.body
        let writer = fds[1]
        let thread = Thread {
            pump(body, to: writer)
            close(writer)
        }
        thread.name = "bridgekit.binary.download"
        thread.start()
    }

    /// Copies `body` into `fd` until its end, an error, or the reader going away.
    private static func pump(_ body: any BinaryBodyReader, to fd: Int32) {
        while let chunk = next(body) {
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
                return
            }
        }
    }

    /// The body's next chunk, waited for on this thread; `nil` at the end or on an error.
    private static func next(_ body: any BinaryBodyReader) -> Data? {
        let box = ChunkBox()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            box.chunk = try? await body.read(maxBytes: 1 << 20)
            done.signal()
        }
        done.wait()
        return box.chunk
    }

    private final class ChunkBox: @unchecked Sendable {
        var chunk: Data?
    }
}
#endif
