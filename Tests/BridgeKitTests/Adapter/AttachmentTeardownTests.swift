import BridgeKit
import Testing

/// A content controller that records handler adds and removals.
@MainActor
private final class TeardownRecordingRegistry: ScriptMessageHandlerRegistry {
    var installed: Set<String> = []
    var log: [String] = []
    func addScriptMessageHandler(_ proxy: MessageHandlerProxy, name: String) {
        installed.insert(name)
        log.append("add \(name)")
    }
    func removeScriptMessageHandler(name: String) {
        installed.remove(name)
        log.append("remove \(name)")
    }
}

/// Dropping a bridge without `detach()` (issue 22, item 4): the handler is removed at once when the
/// attachment is released on the main thread, so re-attaching in the same turn works.
@MainActor
@Suite("Apple adapter: a dropped attachment frees its handler names at once")
struct AttachmentTeardownTests {
    @Test("re-attaching in the same main-actor turn after dropping the old attachment succeeds")
    func reattachSameTurn() throws {
        let router = try makeRouter()
        let registry = TeardownRecordingRegistry()
        var first: BridgeAttachment? = BridgeAttachment(router: router)
        #expect(first?.attach(to: registry) == .attached)
        first = nil
        let second = BridgeAttachment(router: router)
        #expect(second.attach(to: registry) == .attached)
        #expect(registry.installed == ["webbridge"])
        #expect(Array(registry.log.prefix(3)) == ["add webbridge", "remove webbridge", "add webbridge"])
        _ = first
    }

    @Test("the released attachment's late removal never removes the handler a newer attachment installed")
    func lateRemovalKeepsNewHandler() async throws {
        let router = try makeRouter()
        let registry = TeardownRecordingRegistry()
        var first: BridgeAttachment? = BridgeAttachment(router: router)
        first?.attach(to: registry)
        first = nil
        let second = BridgeAttachment(router: router)
        second.attach(to: registry)
        await Task.yield()
        try await Task.sleep(for: .milliseconds(20))
        #expect(registry.installed == ["webbridge"], "\(registry.log)")
        #expect(registry.log.count == 3, "\(registry.log)")
        second.detach()
        #expect(registry.installed.isEmpty)
        _ = first
    }

    @Test("a dropped attachment's handler is removed without a new attachment too")
    func droppedRemoves() async throws {
        let registry = TeardownRecordingRegistry()
        var first: BridgeAttachment? = BridgeAttachment(router: try makeRouter())
        first?.attach(to: registry)
        first = nil
        for _ in 0..<500 where !registry.installed.isEmpty {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(registry.installed.isEmpty)
        _ = first
    }

    @Test("a live attachment's names stay taken")
    func liveTaken() throws {
        let router = try makeRouter()
        let registry = TeardownRecordingRegistry()
        let first = BridgeAttachment(router: router)
        first.attach(to: registry)
        #expect(BridgeAttachment(router: router).attach(to: registry) == .nameInUse("webbridge"))
    }

    @Test("MainActorHop runs at once on the main thread and hops from elsewhere")
    func hop() async {
        let ranSynchronously = await Task.detached { MainActorHop.run {} }.value
        #expect(!ranSynchronously)
    }
}
