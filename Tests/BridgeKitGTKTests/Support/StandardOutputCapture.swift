#if WebKitGTK
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Points this process's standard output at a pipe until ``restore()``, to read what it wrote
/// (BridgeKitGTK's console lines). The pipe is drained whenever ``text`` is read, so other
/// output meanwhile cannot fill it and block the writer.
final class StandardOutputCapture {
    private let saved: Int32
    private let reader: Int32
    private var data = Data()
    private var restored = false

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        fflush(nil)
        saved = dup(STDOUT_FILENO)
        reader = ends[0]
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        dup2(ends[1], STDOUT_FILENO)
        close(ends[1])
    }

    /// Everything written so far.
    var text: String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(reader, &buffer, buffer.count)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Points standard output back where it was (idempotent).
    func restore() {
        guard !restored else { return }
        restored = true
        fflush(nil)
        dup2(saved, STDOUT_FILENO)
        close(saved)
        _ = text
        close(reader)
    }

    deinit { restore() }
}
#endif
