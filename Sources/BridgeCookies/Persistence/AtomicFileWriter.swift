import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file atomically: the new bytes go to a temporary file in the same folder, are
/// flushed to disk with `fsync`, and only then renamed over the target (POSIX `rename` is
/// atomic within one file system). A crash at any point leaves either the old file or the new
/// one, never a mix; a failure removes the temporary file and leaves the old file untouched.
///
/// The file is created with mode 0600 (owner read/write only): cookies are credentials.
/// A crash between creating and renaming the temporary file can leave it behind, named
/// `.<name>.<UUID>.tmp`; it is never read and may be deleted.
enum AtomicFileWriter {
    /// Writes `data` to `url` atomically.
    ///
    /// - Parameters:
    ///   - data: the complete new contents.
    ///   - url: the target file URL; its folder must exist.
    ///   - beforeRename: runs after the temporary file is written and synced, before the rename
    ///     (tests use it to fail a save mid-way). Throwing aborts the save.
    /// - Throws: ``CookieFileError/writeFailed(path:reason:)``.
    static func replace(_ url: URL, with data: Data, beforeRename: () throws -> Void = {}) throws(CookieFileError) {
        let path = url.path(percentEncoded: false)
        let folder = url.deletingLastPathComponent().path(percentEncoded: false)
        let tempPath =
            (folder.hasSuffix("/") ? folder : folder + "/") + "." + url.lastPathComponent + "."
            + UUID().uuidString + ".tmp"
        func failure(_ step: String, _ code: Int32) -> CookieFileError {
            .writeFailed(path: path, reason: "\(step): \(String(cString: strerror(code)))")
        }

        let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create \(tempPath)", errno) }
        var renamed = false
        defer { if !renamed { unlink(tempPath) } }

        var writeError: Int32 = 0
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    writeError = errno
                    return
                }
                offset += written
            }
        }
        if writeError != 0 {
            close(fd)
            throw failure("write", writeError)
        }
        if fsync(fd) != 0 {
            let code = errno
            close(fd)
            throw failure("fsync", code)
        }
        if close(fd) != 0 { throw failure("close", errno) }

        do {
            try beforeRename()
        } catch {
            throw .writeFailed(path: path, reason: "aborted before rename: \(error)")
        }
        guard rename(tempPath, path) == 0 else { throw failure("rename", errno) }
        renamed = true

        // Make the rename itself durable; best effort (not every file system allows it).
        let folderFD = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
        if folderFD >= 0 {
            _ = fsync(folderFD)
            close(folderFD)
        }
    }
}
