import Foundation

/// The answer to a ``BinaryRequest``, for the engine glue to hand to the engine: a status, CORS
/// headers and, for a download, a body to stream.
public struct BinaryResponse: Sendable {
    /// The HTTP status: 200 (done or streaming), 204 (preflight), 403 (origin or frame refused),
    /// 404 (no such transfer, also when no task claimed the token in time or its origin has no
    /// room left to wait, ``BinaryLimits/maxWaitingRequests``), 405, 409 (token already used),
    /// 410 (the page generation ended), 413 (over the limit), 499 (cancelled), 503 (a download
    /// request after ``BinaryTransfers/close()``: `unavailable`), 504 (timed out).
    public var status: Int
    /// Response headers (`Access-Control-Allow-Origin` and friends, `Content-Type`).
    public var headers: [String: String]
    /// The body: a download's bytes, or a short JSON text `{"code": …}` for an error.
    public var body: any BinaryBodyReader
    /// The body's length in bytes when known (`Content-Length`).
    public var contentLength: Int?

    /// Creates a response.
    public init(status: Int, headers: [String: String], body: any BinaryBodyReader, contentLength: Int?) {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentLength = contentLength
    }

    /// A response without a download body: `{"code": code}` as JSON.
    static func plain(_ status: Int, code: String, origin: String?) -> BinaryResponse {
        let text = Data("{\"code\":\"\(code)\"}".utf8)
        var headers = ["Content-Type": "application/json"]
        if let origin { headers["Access-Control-Allow-Origin"] = origin }
        return BinaryResponse(status: status, headers: headers, body: DataBodyReader(text), contentLength: text.count)
    }
}
