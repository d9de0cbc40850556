import BridgeKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct SwiftError: Error {}

@Suite("Page: navigation response policy")
struct PageNavigationResponsePolicyTests {
    private let policy = NavigationResponsePolicy()

    @Test("Main-frame 2xx is fine; every other status is an error carrying the code and URL")
    func mainFrameStatus() throws {
        let url = try #require(URL(string: "https://app.example/page"))
        for code in [200, 201, 204, 226, 299] {
            #expect(policy.classifyResponse(statusCode: code, url: url, isMainFrame: true) == nil)
            let response = try #require(
                HTTPURLResponse(url: url, statusCode: code, httpVersion: "HTTP/1.1", headerFields: nil))
            #expect(policy.classifyResponse(response, isMainFrame: true) == nil)
        }
        for code in [100, 199, 300, 301, 304, 400, 401, 404, 410, 500, 503, 599, 0, -1, 999] {
            let expected = PageLoadError.httpStatus(code: code, url: url)
            #expect(policy.classifyResponse(statusCode: code, url: url, isMainFrame: true) == expected)
            if code >= 100, code <= 599 {
                let response = try #require(
                    HTTPURLResponse(url: url, statusCode: code, httpVersion: "HTTP/1.1", headerFields: nil))
                #expect(policy.classifyResponse(response, isMainFrame: true) == expected)
            }
            #expect(expected.url == url)
        }
    }

    @Test("Subframe responses are never an error of the page")
    func subframes() throws {
        let url = try #require(URL(string: "https://ads.example/frame"))
        for code in [200, 301, 404, 500] {
            #expect(policy.classifyResponse(statusCode: code, url: url, isMainFrame: false) == nil)
            let response = try #require(
                HTTPURLResponse(url: url, statusCode: code, httpVersion: "HTTP/1.1", headerFields: nil))
            #expect(policy.classifyResponse(response, isMainFrame: false) == nil)
        }
    }

    @Test("Non-HTTP responses (file:, data:, custom schemes) are allowed")
    func nonHTTP() throws {
        for text in ["file:///tmp/index.html", "data:text/html,hi", "app://bundle/index.html", "about:blank"] {
            let url = try #require(URL(string: text))
            let response = URLResponse(
                url: url, mimeType: "text/html", expectedContentLength: 2, textEncodingName: "utf-8")
            #expect(policy.classifyResponse(response, isMainFrame: true) == nil)
            #expect(policy.classifyResponse(statusCode: nil, url: url, isMainFrame: true) == nil)
        }
    }

    @Test("The accepted range is configurable")
    func customRange() {
        let lenient = NavigationResponsePolicy(acceptedStatusCodes: 200...399)
        #expect(lenient.classifyResponse(statusCode: 304, url: nil, isMainFrame: true) == nil)
        #expect(
            lenient.classifyResponse(statusCode: 404, url: nil, isMainFrame: true) == .httpStatus(code: 404, url: nil))
    }

    @Test("Cancelled and interrupted navigations are not errors, on both engines; the domain matters")
    func cancellations() {
        let cancelled: [(String, Int)] = [
            ("NSURLErrorDomain", -999), ("WebKitErrorDomain", 102), ("WebKitErrorDomain", 204),
            ("WebKitNetworkError", 302), ("WebKitPolicyError", 102), ("WebKitPluginError", 204),
        ]
        for (domain, code) in cancelled {
            #expect(NavigationResponsePolicy.isCancellation(domain: domain, code: code))
            #expect(policy.classifyFailure(domain: domain, code: code, url: nil, message: "") == nil)
            #expect(policy.classifyFailure(NSError(domain: domain, code: code)) == nil)
        }
        let failures: [(String, Int)] = [
            ("NSURLErrorDomain", -1009), ("NSURLErrorDomain", -1202), ("NSURLErrorDomain", 102),
            ("WebKitErrorDomain", -999), ("WebKitErrorDomain", 101), ("WebKitNetworkError", 399),
            ("WebKitPolicyError", 204), ("g-io-error-quark", 1),
        ]
        for (domain, code) in failures {
            #expect(!NavigationResponsePolicy.isCancellation(domain: domain, code: code))
            #expect(
                policy.classifyFailure(domain: domain, code: code, url: nil, message: "m")
                    == .loadFailed(domain: domain, code: code, url: nil, message: "m"))
        }
    }

    @Test("A provisional failure carries domain, code, the failing URL and the description")
    func failureDetails() throws {
        let url = try #require(URL(string: "https://offline.example/"))
        let error = NSError(
            domain: NSURLErrorDomain, code: NSURLErrorNotConnectedToInternet,
            userInfo: [
                NSURLErrorFailingURLErrorKey: url,
                NSLocalizedDescriptionKey: "The Internet connection appears to be offline.",
            ])
        let classified = policy.classifyFailure(error)
        #expect(
            classified
                == .loadFailed(
                    domain: NSURLErrorDomain, code: -1009, url: url,
                    message: "The Internet connection appears to be offline."))
        #expect(classified?.url == url)
        #expect(classified?.description.contains("-1009") == true)

        #expect(policy.classifyFailure(URLError(.cancelled)) == nil)
        if case .loadFailed(let domain, _, let failingURL, _)? = policy.classifyFailure(SwiftError()) {
            #expect(!domain.isEmpty)
            #expect(failingURL == nil)
        } else {
            Issue.record("A Swift error must be a load failure")
        }
    }
}
