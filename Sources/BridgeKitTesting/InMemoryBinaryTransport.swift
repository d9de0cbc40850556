public import BridgeKit
public import Foundation

/// The page side of the byte transport in memory, for task authors' tests: what the shim's
/// `fetch` to `webbridge-binary://transfer/<token>` does, against a ``BinaryTransfers``.
///
/// ```swift
/// let transport = InMemoryBinaryTransport(transfers: transfers)
/// let (placeholder, token) = InMemoryBinaryTransport.placeholder(size: 3)
/// async let reply = page.call("Save", options: ["file": placeholder])
/// let status = await transport.upload(Data([1, 2, 3]), token: token)
/// ```
public struct InMemoryBinaryTransport: Sendable {
    /// The transfers requests go to.
    public let transfers: BinaryTransfers
    /// The `Origin` header requests carry unless told otherwise.
    public let origin: String

    /// Creates the transport.
    /// - Parameters:
    ///   - transfers: the native side.
    ///   - origin: the page's origin, sent as the `Origin` header; default `https://app.example`
    ///     (``InMemoryPage``'s default).
    public init(transfers: BinaryTransfers, origin: String = "https://app.example") {
        self.transfers = transfers
        self.origin = origin
    }

    /// A placeholder for `size` bytes with a fresh random token, as the shim writes it into a
    /// call's options, and the token.
    public static func placeholder(size: Int?, type: String? = nil) -> (placeholder: JSONValue, token: String) {
        let token = (0..<32).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
        var fields: [String: JSONValue] = ["token": .string(token)]
        if let size { fields["size"] = .int(Int64(size)) }
        if let type { fields["type"] = .string(type) }
        return ([BridgeBinary.placeholderKey: .object(fields)], token)
    }

    /// The URL of `token`'s transfer; with `offset`, of the upload part that starts there.
    public static func url(_ token: String, offset: Int? = nil) -> String {
        BinaryTransfers.scheme + "://transfer/" + token + (offset.map { "?offset=\($0)" } ?? "")
    }

    /// Uploads `data` as the shim sends a large value: in parts of `partBytes`, one request
    /// (`POST …?offset=<n>`) after the other, each sent once the previous one was answered 200.
    /// - Parameters:
    ///   - data: the whole body.
    ///   - token: the placeholder's token.
    ///   - partBytes: the size of every part but the last.
    ///   - origin: the `Origin` header; default ``origin``.
    /// - Returns: the status of each request sent (it stops after the first that is not 200).
    public func uploadParts(_ data: Data, token: String, partBytes: Int, origin: String? = nil) async -> [Int] {
        var statuses: [Int] = []
        var offset = 0
        repeat {
            let end = min(data.count, offset + max(1, partBytes))
            let part = data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end))
            let request = BinaryRequest(
                method: "POST", url: Self.url(token, offset: offset), origin: origin ?? self.origin,
                body: DataBodyReader(part))
            let status = await transfers.handle(request).status
            statuses.append(status)
            guard status == 200 else { break }
            offset = end
        } while offset < data.count
        return statuses
    }

    /// Uploads `data` as the body of `token`'s request (`POST`) and returns the response status
    /// once native consumed or refused it.
    /// - Parameters:
    ///   - data: the body.
    ///   - token: the placeholder's token.
    ///   - origin: the `Origin` header; default ``origin``.
    ///   - body: a reader to use instead of one over `data` (to watch it being cancelled).
    public func upload(_ data: Data, token: String, origin: String? = nil, body: DataBodyReader? = nil) async -> Int {
        let request = BinaryRequest(
            method: "POST", url: Self.url(token), origin: origin ?? self.origin, body: body ?? DataBodyReader(data))
        return await transfers.handle(request).status
    }

    /// Downloads `token`'s bytes (`GET`): the status and the whole body (for an error, its JSON text).
    /// - Parameters:
    ///   - token: the placeholder's token from native.
    ///   - origin: the `Origin` header; default ``origin``.
    ///   - stopAfter: stop reading (cancel the body) after this many bytes, as a page that aborts.
    public func download(_ token: String, origin: String? = nil, stopAfter: Int? = nil) async -> (
        status: Int, body: Data
    ) {
        let response = await transfers.handle(
            BinaryRequest(method: "GET", url: Self.url(token), origin: origin ?? self.origin))
        var body = Data()
        do {
            while let chunk = try await response.body.read(maxBytes: 64 * 1024) {
                body.append(chunk)
                if let stopAfter, body.count >= stopAfter {
                    response.body.cancel()
                    break
                }
            }
        } catch {
            return (499, body)
        }
        return (response.status, body)
    }
}
