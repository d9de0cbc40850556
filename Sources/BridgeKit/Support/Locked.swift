#if canImport(Darwin)
import Darwin
#else
import Synchronization
#endif

/// A value guarded by one lock: the package's only lock type, so that the core runs on the OS
/// versions apps ship (iOS 15, macOS 12) and not only where `Synchronization.Mutex` exists.
///
/// - On Apple platforms it is an `os_unfair_lock` (available since iOS 10 / macOS 10.12) in its own
///   heap allocation, so the lock never moves while it is held (the rule of `os_unfair_lock`).
/// - Elsewhere it is a `Synchronization.Mutex`.
///
/// Not recursive: calling ``withLock(_:)`` again from inside `body` on the same instance deadlocks.
/// Keep `body` short and never call out (to a task, a page channel or a user closure) while holding
/// it; return what must happen and do it after the lock is released.
package final class Locked<State>: @unchecked Sendable {
    #if canImport(Darwin)
    private let lock: UnsafeMutablePointer<os_unfair_lock>
    private var state: State
    #else
    private let mutex: Mutex<State>
    #endif

    /// Creates the lock around `initial`.
    package init(_ initial: sending State) {
        #if canImport(Darwin)
        lock = UnsafeMutablePointer<os_unfair_lock>.allocate(capacity: 1)
        lock.initialize(to: os_unfair_lock())
        state = initial
        #else
        mutex = Mutex(initial)
        #endif
    }

    #if canImport(Darwin)
    deinit {
        lock.deinitialize(count: 1)
        lock.deallocate()
    }
    #endif

    /// Runs `body` with exclusive access to the state and returns its result.
    ///
    /// - Parameter body: Reads or changes the state; runs on the calling thread with the lock held.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; the lock is released either way.
    @inline(__always)
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        return try body(&state)
        #else
        return try mutex.withLock(body)
        #endif
    }
}
