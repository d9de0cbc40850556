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
    /// The main frame has a reserve: everything else (subframes, and page-world handlers, which
    /// any frame's scripts can post to) shares at most half of the budget, so third-party iframes
    /// cannot make the main frame's messages fail (attack 19). A message to a handler in an
    /// isolated world, which page scripts cannot reach, is the main frame's when the relay's stamp
    /// says so (``RelayEnvelope``) or the handler is main-frame-only (BridgeKit's document notice;
    /// ``GTKWebViewCore/inboundShare(of:to:)``).
    ///
    /// The relay's flow control bounds each frame first (at most the router's `maxPendingCalls`
    /// posts and `maxPayloadBytes` bytes unread; docs/protocol.md, "Relay: flow control"), so the
    /// main frame alone stays within its half. The bytes counted are the messages' UTF-8 as the
    /// app keeps it while they wait; the engine's own copies of a message (its IPC buffer and its
    /// JavaScript string, two bytes per character when the string has one beyond U+00FF) come on
    /// top while it is read (docs/performance.md, "What a message costs the app").
    struct InboundBudget {
        /// Whose share a message counts against.
        enum Share: Sendable {
            /// The main frame's messages, stamped by the relay.
            case mainFrame
            /// Every other message.
            case others
        }

        /// The most messages waiting for their handler.
        static let maxMessages = 8192
        /// The most bytes of messages waiting for their handler: 128 MiB.
        static let maxBytes = 128 << 20
        /// The error message a refused message with a reply is answered with (the relay reads
        /// the prefix `bridgekit:busy`).
        static let busy = "bridgekit:busy: this page's earlier messages are still waiting for the app"

        private(set) var messages = 0
        private(set) var bytes = 0
        /// The part of ``messages`` and ``bytes`` that is ``Share/others``'.
        private(set) var otherMessages = 0
        private(set) var otherBytes = 0

        /// Whether one more message of `share` may be read now: fewer than ``maxMessages`` wait,
        /// and fewer than half of them are ``Share/others``'. Checked before a message is read;
        /// its bytes are checked once it is (``queue(bytes:share:)``).
        func admits(_ share: Share) -> Bool {
            guard messages < Self.maxMessages, bytes < Self.maxBytes else { return false }
            return share == .mainFrame || (otherMessages < Self.maxMessages / 2 && otherBytes < Self.maxBytes / 2)
        }

        /// Queues a message of `bytes` of `share` that was read, if its bytes fit: the budget's
        /// bytes for the main frame (or any one message when nothing waits: the router's
        /// `maxPayloadBytes` governs its size), half of them for ``Share/others``. Checking after
        /// the read is what bounds the others' half: a page-world handler takes a message of any
        /// size from any frame (attack 20: one of 160 MiB filled the budget, and the main frame's
        /// calls failed `memory_budget_exceeded`).
        /// - Returns: false when it does not fit (the message is then refused, not queued).
        mutating func queue(bytes: Int, share: Share) -> Bool {
            switch share {
            case .mainFrame:
                guard self.bytes + bytes <= Self.maxBytes || messages == 0 else { return false }
            case .others:
                guard self.bytes + bytes <= Self.maxBytes, otherBytes + bytes <= Self.maxBytes / 2 else { return false }
            }
            queued(bytes: bytes, share: share)
            return true
        }

        /// A message of `bytes` of `share` was read and queued.
        mutating func queued(bytes: Int, share: Share) {
            messages += 1
            self.bytes += bytes
            if share == .others {
                otherMessages += 1
                otherBytes += bytes
            }
        }

        /// A message of `bytes` of `share` reached its handler (or was dropped with its view).
        mutating func handled(bytes: Int, share: Share) {
            messages = max(0, messages - 1)
            self.bytes = max(0, self.bytes - bytes)
            if share == .others {
                otherMessages = max(0, otherMessages - 1)
                otherBytes = max(0, otherBytes - bytes)
            }
        }
    }
}
#endif
