import BridgeKit
import Foundation
import Testing

/// A small deterministic generator (SplitMix64) for event sequences.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private let pageURL = URL(string: "https://app.example/")
private let notFound = PageLoadError.httpStatus(code: 404, url: URL(string: "https://app.example/missing"))

@Suite("Page: state fold")
struct PageStateTests {
    @Test("Progress is clamped to 0...1, monotonic within a load, ignored outside one, and a finished load ends at 1.0")
    func progressRules() {
        var state = PageState()
        #expect(state.apply(.progressChanged(0.5)) == nil)  // not loading
        #expect(state.estimatedProgress == 0)
        #expect(state.apply(.loadStarted(pageURL)) == .loadStarted(pageURL))
        #expect(state.apply(.progressChanged(-0.3)) == nil)  // clamps to 0, not higher
        #expect(state.apply(.progressChanged(.nan)) == nil)
        #expect(state.apply(.progressChanged(0.3)) == .progressChanged(0.3))
        #expect(state.apply(.progressChanged(0.2)) == nil)  // backwards
        #expect(state.apply(.progressChanged(0.3)) == nil)  // same
        #expect(state.estimatedProgress == 0.3)
        #expect(state.apply(.progressChanged(7)) == .progressChanged(1))
        #expect(state.apply(.progressChanged(.infinity)) == nil)
        #expect(state.apply(.loadFinished(nil)) == .loadFinished(pageURL))
        #expect(state.estimatedProgress == 1)
        #expect(!state.isLoading)
        #expect(state.apply(.progressChanged(0.1)) == nil)  // stale, after the load
        // The next load starts from 0 again.
        _ = state.apply(.loadStarted(nil))
        #expect(state.estimatedProgress == 0)
        #expect(state.apply(.progressChanged(0.1)) == .progressChanged(0.1))
        _ = state.apply(.loadFinished(nil))
        #expect(state.estimatedProgress == 1)
    }

    @Test("Any event sequence keeps progress in 0...1, never lower within a load, and 1.0 after each finish")
    func progressInvariantsOverRandomSequences() {
        var generator = SeededGenerator(state: 0x5EED)
        for _ in 0..<200 {
            var state = PageState()
            var previous = state
            for _ in 0..<60 {
                let event: PageEvent =
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0: .loadStarted(nil)
                    case 1: .loadFinished(nil)
                    case 2: .loadFailed(notFound)
                    case 3: .titleChanged(Bool.random(using: &generator) ? "T" : nil)
                    case 4: .progressChanged(.nan)
                    default: .progressChanged(Double.random(in: -0.5...1.5, using: &generator))
                    }
                _ = state.apply(event)
                #expect((0...1).contains(state.estimatedProgress))
                if case .loadStarted = event {
                    #expect(state.estimatedProgress == 0)
                } else if previous.isLoading, state.isLoading {
                    #expect(state.estimatedProgress >= previous.estimatedProgress)
                }
                if case .loadFinished = event, previous.isLoading {
                    #expect(state.estimatedProgress == 1)
                }
                if !state.isLoading, state.loadCount > 0 {
                    #expect(state.estimatedProgress == 1)
                }
                previous = state
            }
        }
    }

    @Test("Load phases: idle, loading, finished; an error belongs to the latest load and survives its end")
    func phases() {
        var state = PageState()
        #expect(state.phase == .idle)
        #expect(state.apply(.loadFinished(nil)) == nil)  // nothing to finish
        _ = state.apply(.loadStarted(pageURL))
        #expect(state.phase == .loading)
        #expect(state.loadCount == 1)
        #expect(state.url == pageURL)
        _ = state.apply(.loadFinished(nil))
        #expect(state.phase == .finished)

        // An HTTP error while the error page still loads, then the load ends.
        _ = state.apply(.loadStarted(nil))
        #expect(state.apply(.loadFailed(notFound)) == .loadFailed(notFound))
        #expect(state.apply(.loadFailed(notFound)) == nil)  // same error again
        #expect(state.isLoading)
        #expect(state.phase == .failed(notFound))
        _ = state.apply(.loadFinished(nil))
        #expect(state.phase == .failed(notFound))
        #expect(state.estimatedProgress == 1)

        // A failure reported after the end (Apple: isLoading turns false before the delegate's
        // didFailProvisionalNavigation) still marks that load.
        _ = state.apply(.loadStarted(nil))
        _ = state.apply(.loadFinished(nil))
        let offline = PageLoadError.loadFailed(
            domain: "NSURLErrorDomain", code: -1009, url: pageURL, message: "offline")
        _ = state.apply(.loadFailed(offline))
        #expect(state.phase == .failed(offline))

        // The next load clears it.
        _ = state.apply(.loadStarted(nil))
        #expect(state.loadError == nil)
        #expect(state.phase == .loading)
        #expect(state.loadCount == 4)
    }

    @Test("Titles: empty is nil, unchanged titles are not events, titles survive a new load")
    func titles() {
        var state = PageState()
        #expect(state.apply(.titleChanged("")) == nil)
        #expect(state.apply(.titleChanged("Shop")) == .titleChanged("Shop"))
        #expect(state.apply(.titleChanged("Shop")) == nil)
        _ = state.apply(.loadStarted(nil))
        #expect(state.title == "Shop")
        #expect(state.apply(.titleChanged("")) == .titleChanged(nil))
        #expect(state.title == nil)
    }
}
