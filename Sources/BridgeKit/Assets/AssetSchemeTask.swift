package import Foundation

/// One request of an asset scheme as an engine's URL scheme handler sees it (a `WKURLSchemeTask`
/// on Apple platforms): what ``AssetSchemeDriver`` reads and answers. Main actor, like WebKit's
/// scheme tasks; the driver never calls an answer method after the engine stopped the task, or
/// after it finished or failed it (WebKit raises an exception then).
@MainActor
package protocol AssetSchemeTask: AnyObject {
    /// The HTTP method.
    var method: String { get }
    /// The request URL as text.
    var url: String { get }
    /// The `Origin` header, as the engine set it.
    var origin: String? { get }
    /// Sends the response head.
    func respond(status: Int, headers: [String: String])
    /// Sends a chunk of the response body.
    func send(_ data: Data)
    /// Ends the response: the whole body was sent.
    func finish()
    /// Ends the response as failed after its head (the file could not be read to its end), so the
    /// page sees a failed load instead of a short body that looks complete.
    /// - Parameter error: why the body ended.
    func fail(_ error: any Error)
}
