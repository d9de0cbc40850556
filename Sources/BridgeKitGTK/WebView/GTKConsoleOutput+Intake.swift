#if WebKitGTK
import Foundation

extension GTKConsoleOutput {
    /// What a view's console handler takes of its frames' posts (main actor).
    ///
    /// The main frame's posts and all other frames' together each have a window of a second
    /// (``RateWindow``): at most ``maxMessagesPerSecondPerView`` messages and
    /// ``maxBytesPerSecondPerView`` bytes. A post is counted before it is split or decoded, so one
    /// the window leaves out costs the main actor next to nothing. Its answer is held: the
    /// forwarder of that frame posts nothing meanwhile, and what its page logs waits there or is
    /// left out and counted, in the frame's own process. Each second, held answers go in the order
    /// their posts came, as many as that share's window would have taken (by the size of the post
    /// each answers, at least one). So however many frames a page has, the app reads about one
    /// window of each share a second (attack 23: 384 iframes, each within its own limits, held the
    /// main frame's calls up for 3-4 s at p95, and answering every held post at once let all of
    /// them post again together). When a second left some out, a line says how many, at the next
    /// post or when held answers go.
    @MainActor
    final class Intake {
        private let main = RateWindow()
        private let others = RateWindow()
        /// Answers held, per share, in the order their posts came, with the size of each post.
        private var heldMain: [(reply: GTKScriptMessage.Reply, bytes: Int)] = []
        private var heldOthers: [(reply: GTKScriptMessage.Reply, bytes: Int)] = []
        private var releaseScheduled = false
        private let receive: @MainActor (Message) -> Void

        init(receive: @escaping @MainActor (Message) -> Void) {
            self.receive = receive
        }

        /// Takes one post of a frame's forwarder (``Post``) and answers it, now or at the next
        /// second.
        func take(_ message: GTKScriptMessage) {
            guard message.isString else {
                _ = message.reply?.returnValue("")
                return
            }
            let text = message.bodyJSONText
            let header = Post.header(of: text)
            let window = header.isMainFrame ? main : others
            if let leftOut = window.countOne(bytes: message.queuedBytes, messages: Post.messageCount(of: text)) {
                noteLeftOut(leftOut, mainFrame: header.isMainFrame)
            }
            guard !window.isFull else {
                if let reply = message.reply {
                    if header.isMainFrame {
                        heldMain.append((reply, message.queuedBytes))
                    } else {
                        heldOthers.append((reply, message.queuedBytes))
                    }
                    scheduleRelease()
                }
                return
            }
            for line in Post.messages(of: text) {
                guard var console = Message(json: String(line)) else { continue }
                console.frame = header.frameOrigin
                receive(console)
            }
            _ = message.reply?.returnValue("")
        }

        private func scheduleRelease() {
            guard !releaseScheduled else { return }
            releaseScheduled = true
            let wait = max(main.remaining, others.remaining, .milliseconds(10))
            Task { @MainActor [weak self] in
                try? await Task.sleep(for: wait)
                self?.release()
            }
        }

        /// Starts the windows' next second, says what the last one left out, and answers a
        /// window's worth of held posts of each share; the rest wait for the next second.
        private func release() {
            releaseScheduled = false
            if let leftOut = main.rollOver() { noteLeftOut(leftOut, mainFrame: true) }
            if let leftOut = others.rollOver() { noteLeftOut(leftOut, mainFrame: false) }
            Self.answerWindowsWorth(of: &heldMain)
            Self.answerWindowsWorth(of: &heldOthers)
            if !heldMain.isEmpty || !heldOthers.isEmpty { scheduleRelease() }
        }

        private static func answerWindowsWorth(of held: inout [(reply: GTKScriptMessage.Reply, bytes: Int)]) {
            var bytes = 0
            var answered = 0
            for post in held {
                guard answered < maxMessagesPerSecondPerView,
                    answered == 0 || bytes + post.bytes <= maxBytesPerSecondPerView
                else { break }
                bytes += post.bytes
                answered += 1
                _ = post.reply.returnValue("")
            }
            held.removeFirst(answered)
        }

        private func noteLeftOut(_ count: Int, mainFrame: Bool) {
            let whose = mainFrame ? "the main frame" : "this view's other frames"
            receive(
                Message(
                    level: "warn", kind: "console",
                    message:
                        "\(count) console messages left out (more than \(maxMessagesPerSecondPerView) or \(maxBytesPerSecondPerView >> 20) MiB a second from \(whose))"
                ))
        }
    }

    /// A count of messages and their bytes in the current second (main actor).
    @MainActor
    final class RateWindow {
        private var started = ContinuousClock.now
        private var count = 0
        private var bytes = 0
        private var leftOut = 0

        /// Whether the messages last counted are over this second's messages or bytes (after
        /// ``countOne(bytes:messages:)``).
        private(set) var isFull = false

        /// How long until this window's second ends (zero once it has).
        var remaining: Duration { max(.zero, started + .seconds(1) - ContinuousClock.now) }

        /// Counts `messages` messages (one post) of `bytes` bytes together; returns how many the
        /// last second left out, when a new second starts with some left out.
        func countOne(bytes: Int, messages: Int = 1) -> Int? {
            let report = rollOver()
            count += messages
            self.bytes += bytes
            isFull =
                count > GTKConsoleOutput.maxMessagesPerSecondPerView
                || self.bytes > GTKConsoleOutput.maxBytesPerSecondPerView
            if isFull { leftOut += messages }
            return report
        }

        /// Starts a new second when the current one has ended; returns how many the ended one
        /// left out, when some.
        func rollOver() -> Int? {
            let now = ContinuousClock.now
            guard now - started >= .seconds(1) else { return nil }
            let report = leftOut > 0 ? leftOut : nil
            started = now
            count = 0
            bytes = 0
            leftOut = 0
            isFull = false
            return report
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
