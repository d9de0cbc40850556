package import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Opens and reads the file a request names inside an asset folder (``AssetFolder``; shared by
/// WebKitGTK's `GTKAssetURIScheme` and Apple's `WebKitAssetSchemeHandler`, unit-tested in
/// `AssetPathTests`). Blocking file system calls: used off the engine's thread.
///
/// The path is resolved with `realpath` (every symbolic link followed) and must then still be
/// inside the directory's own resolved path and a regular file (`lstat`: a device node is never
/// opened); it is opened with `O_NOFOLLOW` (a link put in its place since is refused) and
/// `O_NONBLOCK` (a FIFO put in its place cannot hold the thread), and the open file must be that
/// same regular file (`fstat`: device and inode), so what was checked is what is read. The directory
/// is the app's: someone who can change it while requests run can make the check and the open see
/// different directories above the file, which a page cannot.
package enum AssetFile {
    /// An open regular file: its descriptor (the caller closes it, ``close(_:)``) and size in bytes.
    package struct Opened: Sendable, Equatable {
        /// The open descriptor, read-only, blocking.
        package let descriptor: Int32
        /// The file's size when it was opened.
        package let size: Int64
    }

    /// `path` with every symbolic link resolved, when it is a directory; nil otherwise.
    package static func resolveDirectory(_ path: String) -> String? {
        guard !path.utf8.contains(0), let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        // Not `String(cString:)`: it would replace bytes that are not UTF-8, naming another path.
        guard let text = String(validatingCString: resolved) else { return nil }
        var info = stat()
        guard stat(text, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return text
    }

    /// Opens the regular file `components` names under `root` (a path from ``resolveDirectory(_:)``).
    /// - Returns: the open file, or ``AssetPath/Refusal/notFound`` for anything else: missing,
    ///   outside `root` once links are resolved, a directory, a FIFO, a device, a link loop.
    package static func open(_ components: [String], root: String) -> Result<Opened, AssetPath.Refusal> {
        guard !components.isEmpty, !components.contains(where: { $0.utf8.contains(0) }) else {
            return .failure(.notFound)
        }
        let requested = root + "/" + components.joined(separator: "/")
        guard let resolved = realpath(requested, nil) else { return .failure(.notFound) }
        defer { free(resolved) }
        // Compared and opened as the bytes `realpath` gave: a Swift `String` would replace bytes that
        // are not UTF-8 (opening another path than the one checked) and compares canonically
        // equivalent spellings (`é` and `e` + U+0301, `K` and U+212A) as equal, which Linux does not.
        let resolvedBytes = UnsafeRawBufferPointer(start: resolved, count: strlen(resolved))
        let prefix = root == "/" ? [UInt8(ascii: "/")] : Array(root.utf8) + [UInt8(ascii: "/")]
        guard resolvedBytes.count > prefix.count, resolvedBytes.starts(with: prefix) else {
            return .failure(.notFound)
        }
        // Only a regular file is opened: opening a device node can act on the device (found by
        // an outside attack). Checked again on the open file, which must be the same one.
        var checked = stat()
        guard lstat(resolved, &checked) == 0, (checked.st_mode & S_IFMT) == S_IFREG else {
            return .failure(.notFound)
        }
        let descriptor = openReadOnly(resolved)
        guard descriptor >= 0 else { return .failure(.notFound) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_dev == checked.st_dev,
            info.st_ino == checked.st_ino
        else {
            _ = systemClose(descriptor)
            return .failure(.notFound)
        }
        // Blocking reads from here on.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return .success(Opened(descriptor: descriptor, size: Int64(info.st_size)))
    }

    /// Reads up to `maxBytes` bytes from `file`'s current position (blocking; retried when a
    /// signal interrupts it).
    /// - Returns: the bytes, empty at the end of the file, or the `errno` of a failed read.
    package static func read(_ file: Opened, maxBytes: Int) -> Result<Data, POSIXError> {
        var buffer = [UInt8](repeating: 0, count: max(1, maxBytes))
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(file.descriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return .success(Data(buffer.prefix(count))) }
            let code = errno
            if code == EINTR { continue }
            return .failure(POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
        }
    }

    /// Reads `file` whole from its current position: exactly its ``Opened/size`` bytes (blocking).
    /// - Returns: the bytes, or `EIO` when the file ended before its size, or the `errno` of a
    ///   failed read.
    package static func readWhole(_ file: Opened) -> Result<Data, POSIXError> {
        var data = Data()
        while Int64(data.count) < file.size {
            switch read(file, maxBytes: Int(file.size) - data.count) {
            case .success(let chunk) where !chunk.isEmpty: data.append(chunk)
            case .success: return .failure(POSIXError(.EIO))
            case .failure(let error): return .failure(error)
            }
        }
        return .success(data)
    }

    /// Closes `file`'s descriptor. Call it once per opened file, with no read running.
    package static func close(_ file: Opened) {
        _ = systemClose(file.descriptor)
    }
}

// The C functions, under names that the enum's own `open`, `read` and `close` do not hide.

private func openReadOnly(_ path: UnsafePointer<CChar>) -> Int32 {
    open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
