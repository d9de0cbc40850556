import BridgeKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The WKWebView adapter's navigation logic (``PageGenerations``): which events start a page
/// generation and which become page errors.
@MainActor
@Suite("Apple adapter: navigation events, page generations and page errors")
struct PageGenerationsTests {
    private let url = URL(string: "https://app.example/")

    private func make() throws -> (PageGenerations, BridgeRouter, PageStateTracker) {
        let router = try makeRouter()
        let tracker = PageStateTracker()
        return (PageGenerations(router: router, tracker: tracker, policy: NavigationResponsePolicy()), router, tracker)
    }

    @Test(
        "a commit and a main-frame notice of the attached web view start generations; a subframe's or another web view's notice does not"
    )
    func notices() throws {
        let (generations, router, _) = try make()
        generations.navigationCommitted()
        #expect(router.pageGeneration == 1)
        #expect(generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true))
        #expect(router.pageGeneration == 2)
        #expect(!generations.documentNotice(isMainFrame: false, isFromAttachedWebView: true))
        #expect(!generations.documentNotice(isMainFrame: true, isFromAttachedWebView: false))
        #expect(router.pageGeneration == 2)
    }

    @Test("a notice naming its document: another document starts a generation, the same one again does not")
    func namedNotices() throws {
        let (generations, router, _) = try make()
        let notice = { (id: String) in "{\"v\":1,\"kind\":\"document\",\"document\":\"\(id)\"}" }
        let a = String(repeating: "a", count: 32)
        let b = String(repeating: "b", count: 32)
        #expect(!generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(a)))
        #expect(generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(b)))
        #expect(!generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(b)))
        #expect(generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(a)))
        #expect(generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: "{\"v\":1}"))
        #expect(!generations.documentNotice(isMainFrame: false, isFromAttachedWebView: true, body: notice(b)))
        #expect(router.pageGeneration == 3)
    }

    @Test("a notice's origin is read as a security origin; an opaque, malformed or missing one is none")
    func noticeOrigins() throws {
        let id = String(repeating: "c", count: 32)
        let notice = { (origin: String) in #"{"v":1,"kind":"document","document":"\#(id)","origin":\#(origin)}"# }
        let read = { (text: String) in DocumentNoticeBody.notice(in: text) }
        #expect(read(notice(#""https://app.example:8443""#))?.origin == SecurityOrigin("https://app.example:8443"))
        #expect(read(notice(#""https://app.example:8443""#))?.document == id)
        for origin in [#""null""#, #""not an origin""#, "42", "null", #""https://a.example/path""#] {
            let parsed = read(notice(origin))
            #expect(parsed?.document == id, "\(origin)")
            #expect(parsed?.origin == nil, "\(origin)")
        }
        #expect(read(#"{"v":1,"kind":"document","document":"\#(id)"}"#)?.origin == nil)
        let long = "https://" + String(repeating: "a", count: 1100) + ".example"
        #expect(read(notice("\"\(long)\"")) == nil, "over the notice's size: not a notice")
    }

    @Test("a main-frame 404 is a page error; a subframe's is not")
    func responses() throws {
        let (generations, _, tracker) = try make()
        let pageURL = try #require(url)
        let notFound = try #require(HTTPURLResponse(url: pageURL, statusCode: 404, httpVersion: nil, headerFields: nil))
        #expect(generations.responseReceived(notFound, isMainFrame: false) == nil)
        #expect(generations.responseReceived(notFound, isMainFrame: true) == .httpStatus(code: 404, url: url))
        #expect(tracker.state.loadError == nil, "not before its navigation commits")
        generations.navigationCommitted()
        #expect(tracker.state.loadError == .httpStatus(code: 404, url: url))
    }

    @Test(
        "a response error is recorded only when its navigation commits (a commit, or the notice of a new document): a 404 download, a response the app ignored or a cancelled navigation leave the page on screen without an error"
    )
    func responseErrorsWaitForTheCommit() throws {
        let pageURL = try #require(url)
        let notFound = try #require(HTTPURLResponse(url: pageURL, statusCode: 404, httpVersion: nil, headerFields: nil))
        let notice = { (id: String) in "{\"v\":1,\"kind\":\"document\",\"document\":\"\(id)\"}" }
        let a = String(repeating: "a", count: 32)
        let b = String(repeating: "b", count: 32)

        // Never committed: the navigation was cancelled (a download, the app's policy said ignore).
        // (The routers are held here: the adapter holds its router weakly.)
        let (generations, router, tracker) = try make()
        generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(a))
        generations.responseReceived(notFound, isMainFrame: true)
        #expect(generations.loadFailed(URLError(.cancelled)) == nil)
        generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(a))
        generations.navigationCommitted()
        #expect(tracker.state.loadError == nil, "the cancelled navigation's 404 is not the page's")

        // Committed, told by the new document's notice (the default signal: no commit reported).
        generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(a))
        #expect(tracker.state.loadError == nil)
        generations.responseReceived(notFound, isMainFrame: true)
        generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(a))
        #expect(tracker.state.loadError == nil, "a notice of the document already on screen is no commit")
        generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(b))
        #expect(tracker.state.loadError == .httpStatus(code: 404, url: url))

        // The first document's notice is its commit too.
        let (first, firstRouter, firstTracker) = try make()
        first.responseReceived(notFound, isMainFrame: true)
        first.documentNotice(isMainFrame: true, isFromAttachedWebView: true, body: notice(a))
        #expect(firstTracker.state.loadError == .httpStatus(code: 404, url: url))
        withExtendedLifetime((router, firstRouter)) {}
    }

    @Test("a cancelled load is no error; a failed one is")
    func failures() throws {
        let (generations, _, _) = try make()
        #expect(generations.loadFailed(URLError(.cancelled)) == nil)
        #expect(generations.loadFailed(URLError(.notConnectedToInternet)) != nil)
    }

    @Test("a terminated web content process starts a generation and records the error")
    func processTerminated() throws {
        let (generations, router, tracker) = try make()
        generations.webContentProcessTerminated()
        #expect(router.pageGeneration == 1)
        #expect(tracker.state.loadError == .webContentProcessTerminated(reason: nil))
    }

    @Test("after detach nothing has effects")
    func detached() throws {
        let (generations, router, tracker) = try make()
        generations.detach()
        generations.navigationCommitted()
        generations.webContentProcessTerminated()
        #expect(!generations.documentNotice(isMainFrame: true, isFromAttachedWebView: true))
        #expect(router.pageGeneration == 0)
        #expect(tracker.state.loadError == nil)
    }
}
