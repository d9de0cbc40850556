#if WebKitGTK
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension GTKConsoleOutput {
    /// Writes console lines to standard output on a queue of its own, so a slow reader of the
    /// app's output (a terminal over ssh, a log collector) never holds up the main actor, where
    /// the view's calls are handled (attack 21: with output read at 4 MiB/s, two iframes' console
    /// floods held the main frame's calls up for seconds). At most ``maxPendingBytes`` wait; a
    /// line over that is left out, and the next line written says how many were.
    final class LineWriter: Sendable {
        /// The writer of the process's standard output.
        static let standardOutput = LineWriter(descriptor: STDOUT_FILENO)

        /// The most bytes of lines waiting to be written: 1 MiB.
        static let maxPendingBytes = 1 << 20

        private let descriptor: Int32
        private let queue = DispatchQueue(label: "BridgeKitGTK.console")
        private let pending = Mutex((bytes: 0, leftOut: 0))

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// Queues `line` and a line break, or leaves it out when too much waits. Any thread.
        func write(_ line: String) {
            let data = Data((line + "\n").utf8)
            let accepted = pending.withLock { pending -> Bool in
                guard pending.bytes + data.count <= Self.maxPendingBytes else {
                    pending.leftOut += 1
                    return false
                }
                pending.bytes += data.count
                return true
            }
            guard accepted else { return }
            queue.async { [self] in
                writeAll(data)
                let leftOut = pending.withLock { pending -> Int in
                    pending.bytes -= data.count
                    defer { pending.leftOut = 0 }
                    return pending.leftOut
                }
                if leftOut > 0 {
                    writeAll(
                        Data("CONSOLE WARN \(leftOut) console lines left out (standard output was too slow)\n".utf8))
                }
            }
        }

        /// Writes `data` in one `write(2)` where it can (lines of several views do not interleave),
        /// unbuffered, so none waits in a buffer when the app is killed.
        private func writeAll(_ data: Data) {
            data.withUnsafeBytes { raw in
                guard var base = raw.baseAddress else { return }
                var left = raw.count
                while left > 0 {
                    let written = Glibc.write(descriptor, base, left)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return }
                    left -= written
                    base += written
                }
            }
        }
    }
}
#endif
