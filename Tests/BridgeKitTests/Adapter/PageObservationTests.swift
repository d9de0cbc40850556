import BridgeKit
import Foundation
import Testing

/// A web view's KVO-compliant properties, set by the test.
@MainActor
private final class FakePage: ObservedPage {
    var title: String?
    var url: URL?
    var isLoading = false
    var estimatedProgress = 0.0
}

/// The KVO-to-page-event mapping of the WKWebView adapter (``PageObservation``).
@MainActor
@Suite("Apple adapter: KVO notifications become page events")
struct PageObservationTests {
    private let url = URL(string: "https://app.example/a")

    @Test("the current state is reported at the start, a load already running included")
    func initialState() {
        let page = FakePage()
        page.title = "Shop"
        page.isLoading = true
        page.url = url
        let tracker = PageStateTracker()
        _ = PageObservation(page: page, tracker: tracker)
        #expect(tracker.state.title == "Shop")
        #expect(tracker.state.isLoading)
    }

    @Test("isLoading becomes edges; repeated notifications without a change send nothing")
    func loadingEdges() async {
        let page = FakePage()
        let tracker = PageStateTracker()
        let observation = PageObservation(page: page, tracker: tracker)
        let (_, events) = tracker.subscribe()
        page.url = url
        page.isLoading = true
        observation.loadingDidChange()
        observation.loadingDidChange()
        page.estimatedProgress = 0.5
        observation.progressDidChange()
        page.isLoading = false
        observation.loadingDidChange()
        page.title = "Done"
        observation.titleDidChange()
        observation.stop()
        page.title = "After stop"
        observation.titleDidChange()
        tracker.finish()
        var received: [PageEvent] = []
        for await event in events { received.append(event) }
        #expect(received == [.loadStarted(url), .progressChanged(0.5), .loadFinished(url), .titleChanged("Done")])
    }

    @Test("values are read from the page when notified, not from the change record")
    func currentValues() {
        let page = FakePage()
        let tracker = PageStateTracker()
        let observation = PageObservation(page: page, tracker: tracker)
        page.title = "First"
        page.title = "Second"  // coalesced: one notification for two changes
        observation.titleDidChange()
        #expect(tracker.state.title == "Second")
    }
}
