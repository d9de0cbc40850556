import Synchronization

/// A value that can be taken out once, by any thread: after ``take()`` the box no longer refers
/// to it, so whoever took it holds the only reference the box had.
///
/// The router hands a call's options to the task's work through one, so the work's closure does
/// not keep a large payload alive after the task has run (its captures live until the work ends).
final class TakeOnce: Sendable {
    /// The kind of value it holds: a call's options. Not generic, so that making one per call
    /// does not look up generic metadata at run time.
    typealias Value = any Sendable

    private let value: Mutex<Value?>

    /// A box holding `value`.
    init(_ value: Value) {
        self.value = Mutex(value)
    }

    /// The value on the first call, `nil` on every later one.
    func take() -> Value? {
        // Moved out, not copied and then released.
        value.withLock { $0.take() }
    }
}
