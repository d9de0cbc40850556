#if WebKitGTK
import Foundation

extension GTKConsoleOutput {
    /// What a view's console handler takes of its frames' posts (main actor).
    ///
    /// The main frame's posts and all other frames' together each have a window of a second
    /// (``RateWindow``): at most ``maxMessagesPerSecondPerView`` messages and
    /// ``maxBytesPerSecondPerView`` bytes. A post is counted before it is split or decoded, and
    /// every post is answered at once: `""` when it was taken, `drop <ms>` when its share's
    /// second was full. A dropped post's frame counts its lines as left out and posts nothing
    /// for `<ms>` (the rest of the second) and a random part of a backoff that doubles with each
    /// further drop in a row, from one second up to 32 s (``forwarder``): what it logs meanwhile
    /// waits, or is left out and counted, in its own process. So however many frames a page has, a flood costs the app one cheap answer per
    /// frame per pause, and nothing is held for a document that is gone (attack 23: 384 iframes
    /// within their own limits held the main frame's calls up for 3-4 s at p95; attack 24:
    /// answers held for removed documents held a live iframe's lines up for 6 s, and the next
    /// page's for 22 s).
    @MainActor
    final class Intake {
        private let main = RateWindow()
        private let others = RateWindow()
        private let receive: @MainActor (Message) -> Void

        init(receive: @escaping @MainActor (Message) -> Void) {
            self.receive = receive
        }

        /// Takes one post of a frame's forwarder (``Post``) and answers it.
        func take(_ message: GTKScriptMessage) {
            guard message.isString else {
                _ = message.reply?.returnValue("")
                return
            }
            let text = message.bodyJSONText
            let header = Post.header(of: text)
            let window = header.isMainFrame ? main : others
            window.count(bytes: message.queuedBytes, messages: Post.messageCount(of: text))
            guard !window.isFull else {
                let milliseconds = max(10, Int(window.remaining / .milliseconds(1)))
                _ = message.reply?.returnValue("drop \(milliseconds)")
                return
            }
            for line in Post.messages(of: text) {
                guard var console = Message(json: String(line)) else { continue }
                console.frame = header.frameOrigin
                receive(console)
            }
            _ = message.reply?.returnValue("")
        }
    }

    /// A count of messages and their bytes in the current second (main actor).
    @MainActor
    final class RateWindow {
        private var started = ContinuousClock.now
        private var messages = 0
        private var bytes = 0

        /// Whether the messages last counted are over this second's messages or bytes (after
        /// ``count(bytes:messages:)``).
        private(set) var isFull = false

        /// How long until this window's second ends (zero once it has).
        var remaining: Duration { max(.zero, started + .seconds(1) - ContinuousClock.now) }

        /// Counts `messages` messages (one post) of `bytes` bytes together, in a new second when
        /// the current one has ended.
        func count(bytes: Int, messages: Int = 1) {
            let now = ContinuousClock.now
            if now - started >= .seconds(1) {
                started = now
                self.messages = 0
                self.bytes = 0
            }
            self.messages += messages
            self.bytes += bytes
            isFull =
                self.messages > GTKConsoleOutput.maxMessagesPerSecondPerView
                || self.bytes > GTKConsoleOutput.maxBytesPerSecondPerView
        }
    }

    /// The text of one post of a frame's forwarder: a header, `main` or `sub <origin>` (the
    /// forwarder's own reading of `window.top === window` and `self.origin`, in the isolated world),
    /// then each message's JSON text, one per line. Read as UTF-8 bytes and split on the line feed
    /// only ("\r\n" is one Swift Character: attack 23).
    enum Post {
        /// Whether the post is the main frame's, and the iframe's origin when it is not.
        static func header(of text: String) -> (isMainFrame: Bool, frameOrigin: String?) {
            let first = text.utf8.prefix { $0 != UInt8(ascii: "\n") }
            if first.elementsEqual("main".utf8) { return (true, nil) }
            let sub = "sub ".utf8
            guard first.starts(with: sub) else { return (false, "?") }
            return (false, String(decoding: first.dropFirst(sub.count).prefix(2048), as: UTF8.self))
        }

        /// How many messages the post carries (its lines after the header), counted without
        /// splitting it.
        static func messageCount(of text: String) -> Int {
            var text = text
            return text.withUTF8 { bytes in
                var count = 0
                for byte in bytes where byte == UInt8(ascii: "\n") { count += 1 }
                return count
            }
        }

        /// The messages' JSON texts (its non-empty lines after the header).
        static func messages(of text: String) -> [Substring] {
            Array(text.unicodeScalars.split(separator: "\n").dropFirst().map(Substring.init))
        }
    }
}
#endif
