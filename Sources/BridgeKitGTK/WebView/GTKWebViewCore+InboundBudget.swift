#if WebKitGTK
extension GTKWebViewCore {
    /// How many script messages of one view, and how many of their bytes, may wait in the app for
    /// their handler (read on the GTK thread, not yet handled on the main actor). WebKit copies
    /// every posted message into the app before a handler can look at it, and the app reads it on
    /// the GTK thread and queues it for the main actor; a page that posts without waiting (its own
    /// script at the relay, or many frames) filled the app's memory and held up every other view
    /// behind its queue (attack 18: 64 posts of 15 MiB grew the app by 1.8 GiB and made another
    /// view's calls wait 40 s). Over the budget a message is not read at all
    /// (``GTKWebViewCore/deliver(name:value:reply:)``).
    ///
    /// The relay bounds each frame first (its `maxPendingPosts` and `maxPendingUnits`, the
    /// router's `maxPendingCalls` and `maxHeldBytes`); this bounds a view whatever its frames do,
    /// at twice the relay's defaults, so a page that keeps to the relay's limits never meets it.
    struct InboundBudget {
        /// The most messages waiting for their handler.
        static let maxMessages = 8192
        /// The most bytes of messages waiting for their handler: 128 MiB.
        static let maxBytes = 128 << 20
        /// The error message a refused message with a reply is answered with (the relay reads
        /// the prefix `bridgekit:busy`).
        static let busy = "bridgekit:busy: this page's earlier messages are still waiting for the app"

        private(set) var messages = 0
        private(set) var bytes = 0

        /// Whether one more message may be read now.
        func admits() -> Bool { messages < Self.maxMessages && bytes < Self.maxBytes }

        /// A message of `bytes` was read and queued.
        mutating func queued(bytes: Int) {
            messages += 1
            self.bytes += bytes
        }

        /// A message of `bytes` reached its handler (or was dropped with its view).
        mutating func handled(bytes: Int) {
            messages = max(0, messages - 1)
            self.bytes = max(0, self.bytes - bytes)
        }
    }
}
#endif
