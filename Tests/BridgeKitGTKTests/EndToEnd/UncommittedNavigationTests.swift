#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import Foundation
import Glibc
import Synchronization
import Testing

extension GTKWrapperTests.EndToEnd {
    /// Kind of fault: a page generation that changes when a navigation *starts*. A navigation that
    /// never commits leaves the same document on screen; its calls must go on and settle normally
    /// (issue 20, item 2). The existing reload / navigate tests (``Navigation``) cover the other
    /// side: a committed document ends the old one's calls.
    @MainActor
    @Suite("Navigations that never commit")
    struct UncommittedNavigation {
        enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
            /// `location` to a URL answered 204 No Content.
            case noContent204
            /// `location` to a URL answered 205 Reset Content.
            case resetContent205
            /// A response with `Content-Disposition: attachment`: WebKit downloads instead.
            case download
            /// A navigation to a server that never answers, stopped with `window.stop()`.
            case windowStop
            /// A response the app's policy handler ignores.
            case policyIgnored
            /// A cross-origin iframe sets `top.location` to a 204 URL, without a user gesture.
            case crossOriginFrameTop204

            var testDescription: String { rawValue }
        }

        /// `Gate`: runs until the test opens the gate, then replies "done".
        static func gateTask(_ open: Locked<Bool>) -> some BridgeTask {
            ClosureTask(name: "Gate") { (_: JSONValue, _: CallContext) -> String in
                while !open.value {
                    try await Task.sleep(for: .milliseconds(5))
                }
                return "done"
            }
        }

        @Test(
            "A navigation that never commits keeps the document's calls: they run on and settle with their result",
            .timeLimit(.minutes(1)), arguments: Kind.allCases)
        func callSurvives(kind: Kind) async throws {
            let server = try LoopbackServer()
            let other = try LoopbackServer()
            let silent = try SilentServer()
            defer {
                server.stop()
                other.stop()
                silent.stop()
            }
            server.routes["/first"] = .init(body: E2EPage.html(title: "first"))
            server.routes["/nocontent"] = .init(status: 204, body: "")
            server.routes["/reset"] = .init(status: 205, body: "")
            server.routes["/file"] = .init(
                contentType: "application/octet-stream",
                headers: [("Content-Disposition", "attachment; filename=\"report.bin\"")],
                body: "not a page")
            server.routes["/ignored"] = .init(body: E2EPage.html(title: "ignored"))
            other.routes["/frame"] = .init(
                body:
                    "<!doctype html><script>top.location = \(E2EPage.jsLiteral(server.origin + "/nocontent"));</script>"
            )
            let open = Locked(false)
            let harness = try E2EHarness(allowing: [server.origin]) { router, _ in
                try router.register(Self.gateTask(open))
            }
            harness.host.page.onPolicyDecision = { request, _ in
                request.kind == .response && request.uri.hasSuffix("/ignored") ? .ignore : .useDefault
            }
            try await harness.load(server.origin + "/first")
            let generation = harness.router.pageGeneration
            try await harness.run("window.__sameDocument = true; e2eCall('held', 'Gate', {});")
            #expect(await eventually { harness.traffic.matching(.inbound, "call").contains { $0.task == "Gate" } })

            let mark = harness.loadEvents.count
            switch kind {
            case .noContent204: try await harness.run("location.href = '/nocontent';")
            case .resetContent205: try await harness.run("location.href = '/reset';")
            case .download: try await harness.run("location.href = '/file';")
            case .policyIgnored: try await harness.run("location.href = '/ignored';")
            case .windowStop:
                try await harness.run("location.href = \(E2EPage.jsLiteral(silent.origin + "/never"));")
                #expect(
                    await eventually { harness.loadEvents.dropFirst(mark).contains(.started) }, "the navigation started"
                )
                try await harness.run("window.stop();")
            case .crossOriginFrameTop204:
                try await harness.run(
                    """
                    var f = document.createElement('iframe'); f.src = \(E2EPage.jsLiteral(other.origin + "/frame"));
                    document.body.appendChild(f);
                    """)
            }
            if kind != .crossOriginFrameTop204 {
                // The navigation really started (the old code ended the document's calls here).
                #expect(
                    await eventually { harness.loadEvents.dropFirst(mark).contains(.started) }, "the navigation started"
                )
            }
            await idle(.milliseconds(400))
            #expect(!harness.loadEvents.dropFirst(mark).contains(.committed), "nothing committed")
            #expect(try await harness.isTrue("window.__sameDocument === true"), "the same document is on screen")
            #expect(harness.router.pageGeneration == generation, "no new page generation")

            open.set(true)
            try await harness.waitForSettled(["held"])
            let held = try await harness.outcome("held")
            #expect(held.ok, "the call settled with its result, not \(held.code ?? "")")
            #expect(held.data == "done")
            try await harness.run("e2eCall('after', 'Record', 'after');")
            try await harness.waitForSettled(["after"])
            #expect(try await harness.outcome("after").ok)
            #expect(try await harness.value("WebBridge.pendingCount()", as: Int.self) == 0)
            await harness.close()
        }
    }
}

/// A TCP listener on 127.0.0.1 that accepts connections and never answers: a navigation to it
/// stays provisional (started, never committed) until it is stopped.
final class SilentServer: Sendable {
    private let descriptor: Int32
    /// The port it listens on.
    let port: Int
    /// "http://127.0.0.1:<port>".
    var origin: String { "http://127.0.0.1:\(port)" }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw E2EError.unexpectedValue("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw E2EError.unexpectedValue("cannot listen on 127.0.0.1")
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Stops listening (connections in the backlog are reset).
    func stop() {
        close(descriptor)
    }
}
#endif
