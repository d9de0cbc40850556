public import Foundation

/// What a web view's page looks like now: title, load progress, loading or not, and the
/// latest load's error. A value, folded from ``PageEvent``s by ``apply(_:)``.
///
/// Rules of the fold:
/// - **Progress** is clamped to 0...1 (NaN is ignored), only counts while loading, and never
///   goes down within one load: a lower value is ignored. A load starts at 0; a load that ends
///   (finished or failed) ends at 1.0, so "progress 1.0 and not loading" is the resting state.
/// - **Title**: an empty title is `nil`; the title survives loads until the new document sets
///   its own (engines report the change).
/// - **Error**: ``loadError`` belongs to the latest load and is cleared when the next one
///   starts. An error does not end loading by itself (a 404 page still loads); the engine's
///   end-of-load event does.
public struct PageState: Sendable, Hashable {
    /// Where the page is in its life.
    public enum Phase: Sendable, Hashable {
        /// No load has been seen.
        case idle
        /// A main-frame load is in progress.
        case loading
        /// The latest load ended without an error.
        case finished
        /// The latest load has an error (it may have ended or not: see ``PageState/isLoading``).
        case failed(PageLoadError)
    }

    /// The document title, or `nil`.
    public internal(set) var title: String?
    /// The URL of the latest load (as of its start or end; same-document changes such as
    /// `pushState` are not tracked here: see the History task).
    public internal(set) var url: URL?
    /// The estimated progress of the current load, 0.0 to 1.0.
    public internal(set) var estimatedProgress: Double = 0
    /// Whether a main-frame load is in progress.
    public internal(set) var isLoading = false
    /// The latest load's error, or `nil`.
    public internal(set) var loadError: PageLoadError?
    /// How many loads have started since tracking began.
    public internal(set) var loadCount = 0

    /// Creates the state of a page where nothing happened yet.
    public init() {}

    /// ``Phase/failed(_:)`` when the latest load has an error (even while its error page still
    /// loads); otherwise ``Phase/loading`` while loading, ``Phase/finished`` after a load,
    /// ``Phase/idle`` before any.
    public var phase: Phase {
        if let loadError { return .failed(loadError) }
        if isLoading { return .loading }
        return loadCount > 0 ? .finished : .idle
    }

    /// Folds one event into the state.
    /// - Parameter event: the event from the engine.
    /// - Returns: the event as applied (a progress value clamped), or `nil` when it changed
    ///   nothing (same title, progress not higher, progress outside a load, finish while not
    ///   loading, the same error again).
    public mutating func apply(_ event: PageEvent) -> PageEvent? {
        switch event {
        case .titleChanged(let newTitle):
            let normalized = newTitle?.isEmpty == true ? nil : newTitle
            guard normalized != title else { return nil }
            title = normalized
            return .titleChanged(normalized)
        case .progressChanged(let value):
            guard isLoading, !value.isNaN else { return nil }
            let clamped = min(max(value, 0), 1)
            guard clamped > estimatedProgress else { return nil }
            estimatedProgress = clamped
            return .progressChanged(clamped)
        case .loadStarted(let newURL):
            isLoading = true
            estimatedProgress = 0
            loadError = nil
            loadCount += 1
            if let newURL { url = newURL }
            return .loadStarted(url)
        case .loadFinished(let newURL):
            guard isLoading else { return nil }
            isLoading = false
            estimatedProgress = 1
            if let newURL { url = newURL }
            return .loadFinished(url)
        case .loadFailed(let error):
            guard loadError != error else { return nil }
            loadError = error
            return .loadFailed(error)
        }
    }
}
