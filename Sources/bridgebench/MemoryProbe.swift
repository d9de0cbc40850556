import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads and resets a process's peak resident memory through `/proc` (Linux).
///
/// `VmHWM` in `/proc/<pid>/status` is the peak resident set size; writing `5` to
/// `/proc/<pid>/clear_refs` resets it to the current resident size (Linux ≥ 4.0), so the peak of
/// one measured step is `VmHWM` after it minus `VmRSS` before it.
struct MemoryProbe {
    /// The process to read; `nil` for this process.
    let pid: Int32?

    private var directory: String { pid.map { "/proc/\($0)" } ?? "/proc/self" }

    /// `VmRSS` and `VmHWM` in bytes, or `nil` when the file cannot be read.
    func read() -> (rss: Int, peak: Int)? {
        guard let text = try? String(contentsOfFile: directory + "/status", encoding: .utf8) else { return nil }
        var rss: Int?
        var peak: Int?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") { rss = Self.kilobytes(line) }
            if line.hasPrefix("VmHWM:") { peak = Self.kilobytes(line) }
        }
        guard let rss, let peak else { return nil }
        return (rss * 1024, peak * 1024)
    }

    /// CPU time (user + system) the process used so far, in seconds, from `/proc/<pid>/stat`.
    func cpuSeconds() -> Double? {
        guard let text = try? String(contentsOfFile: directory + "/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resets the peak to the current resident size.
    /// - Returns: whether the kernel accepted it.
    @discardableResult
    func resetPeak() -> Bool {
        let descriptor = open(directory + "/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// The growth of the peak resident memory of this (UI) process and of the web process `web`
    /// during `work`, in bytes. Free heap memory is returned to the system first (`malloc_trim`), so
    /// the growth is not hidden by memory kept from earlier runs; the web process's peak is reset
    /// the same way but its heap cannot be trimmed from here.
    /// - Returns: the UI growth, and the web process's (`nil` without `web` or where its peak
    ///   cannot be reset).
    @MainActor
    static func peakGrowth(web pid: Int32?, during work: () async throws -> Void) async rethrows -> (
        ui: Int, web: Int?
    ) {
        let ui = MemoryProbe(pid: nil)
        let web = pid.map { MemoryProbe(pid: $0) }
        trimHeap()
        let uiReset = ui.resetPeak()
        let webReset = web?.resetPeak() ?? false
        let uiBefore = ui.read()?.rss ?? 0
        let webBefore = web?.read()?.rss ?? 0
        try await work()
        let uiPeak = (ui.read()?.peak ?? 0) - (uiReset ? uiBefore : 0)
        let webPeak = web.flatMap { probe in webReset ? probe.read().map { $0.peak - webBefore } : nil }
        return (max(uiPeak, 0), webPeak.map { max($0, 0) })
    }

    /// Fixes glibc's mmap threshold at its initial 128 KiB (`mallopt(M_MMAP_THRESHOLD, …)`,
    /// looked up at run time like ``trimHeap()``), which also turns off glibc's raising it after a
    /// large block is freed. Without it, an allocation of a size freed before comes from heap
    /// memory kept since, and the peak of a step hides it, so the same step measures 8 MiB in one
    /// run and 40 MiB in the next. It stays fixed for the rest of the process: call it after the
    /// timed rows, before the memory rows.
    static func fixMmapThreshold() {
        typealias SetOption = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in <malloc.h>
        _ = unsafeBitCast(symbol, to: SetOption.self)(mmapThreshold, 128 * 1024)
    }

    /// Returns free heap memory of this process to the system (glibc `malloc_trim(0)`, looked up
    /// at run time because no Swift module exports it); does nothing where it does not exist.
    static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    private static func kilobytes(_ line: Substring) -> Int? {
        line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }

    /// The WebKit web processes started by this process (directly or through the sandbox's
    /// `bwrap`): every `WebKitWebProcess` whose chain of parents reaches this process.
    static func webProcesses() -> [Int32] {
        let me = getpid()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var parents: [Int32: Int32] = [:]
        var names: [Int32: String] = [:]
        for entry in entries {
            guard let pid = Int32(entry),
                let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8)
            else { continue }
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Name:") { names[pid] = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("PPid:") {
                    parents[pid] = Int32(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
                }
            }
        }
        return names.compactMap { pid, name -> Int32? in
            guard name.hasPrefix("WebKitWebProces") else { return nil }
            var current = pid
            for _ in 0..<16 {
                guard let parent = parents[current], parent > 1 else { return nil }
                if parent == me { return pid }
                current = parent
            }
            return nil
        }.sorted()
    }
}
