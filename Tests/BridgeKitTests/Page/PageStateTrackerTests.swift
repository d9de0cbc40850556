import BridgeKit
import Foundation
import Testing

/// Reads up to `count` events, or fewer when the stream ends first.
private func collect(_ stream: AsyncStream<PageEvent>, count: Int) async -> [PageEvent] {
    var events: [PageEvent] = []
    for await event in stream {
        events.append(event)
        if events.count == count { break }
    }
    return events
}

@Suite("Page: state tracker and event stream")
struct PageStateTrackerTests {
    @Test("Subscribers get the applied events in order; no-op events are not passed on")
    func eventsInOrder() async {
        let tracker = PageStateTracker()
        let (initial, stream) = tracker.subscribe()
        #expect(initial == PageState())
        tracker.send(.titleChanged("Shop"))
        tracker.send(.titleChanged("Shop"))  // no change
        tracker.send(.progressChanged(0.4))  // not loading
        tracker.send(.loadStarted(URL(string: "https://app.example/")))
        tracker.send(.progressChanged(1.8))
        tracker.send(.loadFinished(nil))
        tracker.finish()
        let events = await collect(stream, count: 100)
        #expect(
            events == [
                .titleChanged("Shop"),
                .loadStarted(URL(string: "https://app.example/")),
                .progressChanged(1),
                .loadFinished(URL(string: "https://app.example/")),
            ])
        #expect(tracker.state.phase == .finished)
        #expect(tracker.state.title == "Shop")
    }

    @Test("Each subscriber keeps at most bufferLimit unread events, the newest ones")
    func boundedBuffer() async {
        let tracker = PageStateTracker(bufferLimit: 4)
        let slow = tracker.events()
        tracker.send(.loadStarted(nil))
        for step in 1...100 {
            tracker.send(.progressChanged(Double(step) / 100))
        }
        tracker.finish()
        let events = await collect(slow, count: 1000)
        #expect(
            events == [.progressChanged(0.97), .progressChanged(0.98), .progressChanged(0.99), .progressChanged(1)])
        #expect(tracker.state.estimatedProgress == 1)
        #expect(PageStateTracker(bufferLimit: 0).bufferLimit == 1)
    }

    @Test("Several subscribers each get every event")
    func fanOut() async {
        let tracker = PageStateTracker()
        let first = tracker.events()
        let second = tracker.events()
        #expect(tracker.subscriberCount == 2)
        tracker.send(.titleChanged("A"))
        tracker.send(.titleChanged("B"))
        tracker.finish()
        #expect(await collect(first, count: 10) == [.titleChanged("A"), .titleChanged("B")])
        #expect(await collect(second, count: 10) == [.titleChanged("A"), .titleChanged("B")])
    }

    @Test("finish() ends every stream; later events are ignored and later subscriptions end at once")
    func finishEnds() async {
        let tracker = PageStateTracker()
        let stream = tracker.events()
        let reader = Task { await collect(stream, count: 1000) }
        tracker.send(.titleChanged("A"))
        tracker.finish()
        #expect(await reader.value == [.titleChanged("A")])
        #expect(tracker.isFinished)
        #expect(tracker.send(.titleChanged("B")) == nil)
        #expect(tracker.state.title == "A")
        let (state, late) = tracker.subscribe()
        #expect(state.title == "A")
        #expect(await collect(late, count: 10).isEmpty)
        #expect(tracker.subscriberCount == 0)
        tracker.finish()  // idempotent
    }

    @Test("A subscriber that stops reading or is dropped is removed (no leak)")
    func subscriberRemoval() async {
        let tracker = PageStateTracker()
        do {
            _ = tracker.events()  // dropped unread
        }
        let stream = tracker.events()
        let reader = Task { await collect(stream, count: 1000) }
        tracker.send(.titleChanged("A"))
        reader.cancel()
        _ = await reader.value
        var removed = false
        for _ in 0..<1000 where !removed {
            removed = tracker.subscriberCount == 0
            await Task.yield()
        }
        #expect(removed)
    }

    @Test("Events sent from many threads all fold into the state")
    func concurrentSenders() async {
        let tracker = PageStateTracker()
        tracker.send(.loadStarted(nil))
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for step in 0..<250 {
                        tracker.send(.progressChanged(Double(step * 8 + worker) / 2000))
                    }
                }
            }
        }
        #expect(tracker.state.estimatedProgress == Double(249 * 8 + 7) / 2000)
        #expect(tracker.state.isLoading)
    }

    @Test("A released tracker ends its streams")
    func deinitFinishes() async {
        var tracker: PageStateTracker? = PageStateTracker()
        let stream = tracker?.events()
        tracker?.send(.titleChanged("A"))
        tracker = nil
        if let stream {
            #expect(await collect(stream, count: 10) == [.titleChanged("A")])
        }
        #expect(stream != nil)
    }
}
