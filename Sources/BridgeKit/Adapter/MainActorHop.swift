import Foundation

/// Runs work that must happen on the main actor from any thread (WebKit reply blocks, and the
/// teardown in a nonisolated `deinit`):
/// synchronously when the last reference was dropped on the main thread (the usual case for
/// UI objects, and what lets an app re-attach in the same main-actor turn), otherwise on the
/// main actor's next turn. Swift 6.1's `deinit` cannot be `isolated`, and that feature needs the
/// Swift 6.2 runtime on iOS 15 / macOS 12.
package enum MainActorHop {
    /// Runs `body` on the main actor: now when on the main thread, else after a hop.
    /// - Returns: whether `body` ran synchronously.
    @discardableResult
    package static func run(_ body: @escaping @MainActor @Sendable () -> Void) -> Bool {
        if Thread.isMainThread {
            MainActor.assumeIsolated { body() }
            return true
        }
        Task { @MainActor in body() }
        return false
    }
}
