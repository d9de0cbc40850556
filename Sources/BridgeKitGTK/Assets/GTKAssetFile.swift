#if WebKitGTK
import Foundation

/// Opens the file a request names inside the asset directory (``GTKAssetURIScheme``; unit-tested
/// in `AssetPathTests`). Blocking file system calls: used off WebKitGTK's thread.
///
/// The path is resolved with `realpath` (every symbolic link followed) and must then still be
/// inside the directory's own resolved path and a regular file (`lstat`: a device node is never
/// opened); it is opened with `O_NOFOLLOW` (a link put in its place since is refused) and
/// `O_NONBLOCK` (a FIFO put in its place cannot hold the thread), and the open file must be that
/// same regular file (`fstat`: device and inode), so what was checked is what is read. The directory
/// is the app's: someone who can change it while requests run can make the check and the open see
/// different directories above the file, which a page cannot.
enum GTKAssetFile {
    /// An open regular file: its descriptor (the caller closes it) and size in bytes.
    struct Opened: Sendable, Equatable {
        let descriptor: Int32
        let size: Int64
    }

    /// `path` with every symbolic link resolved, when it is a directory; nil otherwise.
    static func resolveDirectory(_ path: String) -> String? {
        guard !path.utf8.contains(0), let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        // Not `String(cString:)`: it would replace bytes that are not UTF-8, naming another path.
        guard let text = String(validatingCString: resolved) else { return nil }
        var info = stat()
        guard stat(text, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return text
    }

    /// Opens the regular file `components` names under `root` (a path from ``resolveDirectory(_:)``).
    /// - Returns: the open file, or ``GTKAssetPath/Refusal/notFound`` for anything else: missing,
    ///   outside `root` once links are resolved, a directory, a FIFO, a device, a link loop.
    static func open(_ components: [String], root: String) -> Result<Opened, GTKAssetPath.Refusal> {
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
        let descriptor = Glibc.open(resolved, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return .failure(.notFound) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_dev == checked.st_dev,
            info.st_ino == checked.st_ino
        else {
            close(descriptor)
            return .failure(.notFound)
        }
        // Blocking reads from here on (GIO reads a regular file on a worker thread of its own).
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return .success(Opened(descriptor: descriptor, size: Int64(info.st_size)))
    }
}
#endif
