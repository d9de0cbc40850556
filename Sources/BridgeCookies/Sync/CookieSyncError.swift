/// The cookies a ``CookieSync`` could not copy, with the reason for each.
public struct CookieSyncError: Error, Sendable, CustomStringConvertible {
    /// One cookie that could not be copied.
    public struct Failure: Sendable {
        /// The cookie's identity, or `nil` when the store as a whole could not be read.
        public var cookie: CookieKey?
        /// The error the store or jar reported.
        public var error: any Error

        /// Creates a failure record.
        public init(cookie: CookieKey?, error: any Error) {
            self.cookie = cookie
            self.error = error
        }
    }

    /// Every failure, ordered by cookie key; never empty.
    public var failures: [Failure]
    /// How many cookies were copied despite the failures.
    public var succeeded: Int

    /// Creates a sync error.
    public init(failures: [Failure], succeeded: Int) {
        self.failures = failures
        self.succeeded = succeeded
    }

    /// A summary naming each failed cookie (never a value).
    public var description: String {
        let items = failures.map { "\($0.cookie?.description ?? "store"): \($0.error)" }
        return "\(failures.count) cookie(s) not copied, \(succeeded) copied: " + items.joined(separator: "; ")
    }
}
