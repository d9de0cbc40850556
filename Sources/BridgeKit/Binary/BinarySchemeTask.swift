public import Foundation

/// One request of the byte transport as an engine's URL scheme handler sees it (a
/// `WKURLSchemeTask` on Apple platforms): what ``BinarySchemeDriver`` reads and answers. Main
/// actor, like WebKit's scheme tasks; the driver never calls an answer method after the engine
/// stopped the task (WebKit raises an exception then).
@MainActor
public protocol BinarySchemeTask: AnyObject {
    /// The HTTP method.
    var method: String { get }
    /// The request URL as text.
    var url: String { get }
    /// The `Origin` header, as the engine set it.
    var origin: String? { get }
    /// The request body, when the engine gives it whole (`URLRequest.httpBody`).
    var body: Data? { get }
    /// Sends the response head.
    func respond(status: Int, headers: [String: String])
    /// Sends a chunk of the response body.
    func send(_ data: Data)
    /// Ends the response: the whole body was sent.
    func finish()
    /// Ends the response as failed after its head (a download whose source threw or whose
    /// transfers closed mid-body), so the page's read fails instead of seeing a short body that
    /// looks complete (`WKURLSchemeTask.didFailWithError(_:)`).
    /// - Parameter error: why the body ended.
    func fail(_ error: any Error)
}
