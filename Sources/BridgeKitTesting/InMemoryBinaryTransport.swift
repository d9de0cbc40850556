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
///
/// Like the shim, it sends a request again while native answers `404 unknown_transfer` with
/// reason `no_room` (the call it belongs to was not admitted yet, so it could not wait for its
/// claim; docs/protocol.md, "Binary values"): after 10 ms, each wait twice the one before and at
/// most 1 s, at most 10 times.
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
        transfers.noteServed()
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

    /// The URL of `token`'s transfer; with `offset`, of the part (upload or download) that starts there.
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
            let status = await send {
                BinaryRequest(
                    method: "POST", url: Self.url(token, offset: offset), origin: origin ?? self.origin,
                    body: DataBodyReader(part))
            }.status
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
    ///   - body: a reader to use instead of one over `data` (to watch it being cancelled); the
    ///     request is then sent once, whatever the answer.
    public func upload(_ data: Data, token: String, origin: String? = nil, body: DataBodyReader? = nil) async -> Int {
        let origin = origin ?? self.origin
        if let body {
            return await transfers.handle(
                BinaryRequest(method: "POST", url: Self.url(token), origin: origin, body: body)
            ).status
        }
        return await send {
            BinaryRequest(method: "POST", url: Self.url(token), origin: origin, body: DataBodyReader(data))
        }.status
    }

    /// Sends the request `make` makes, and a new one (a fresh body) again while native answers
    /// `no_room`, as the shim does: after 10 ms, each wait twice the one before and at most 1 s,
    /// at most 10 times.
    /// - Returns: the last response (its body unread).
    public func send(_ make: () -> BinaryRequest) async -> BinaryResponse {
        var delay = 10
        var retries = 0
        while true {
            let response = await transfers.handle(make())
            guard response.status == 404, retries < 10 else { return response }
            var text = Data()
            while let chunk = try? await response.body.read(maxBytes: 4096) { text.append(chunk) }
            let answer = try? BridgeJSON.decode(JSONValue.self, from: text)
            guard answer?.string("reason") == "no_room" else {
                return BinaryResponse(
                    status: response.status, headers: response.headers, body: DataBodyReader(text),
                    contentLength: text.count)
            }
            try? await Task.sleep(for: .milliseconds(delay))
            delay = min(1000, delay * 2)
            retries += 1
        }
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

    /// Downloads `token`'s `size` bytes as the shim reads a value of known size: in parts
    /// (`GET …?offset=<n>`, native chooses each part's length), one after the other, until `size`
    /// bytes came; when it stops early (a part refused or failed, a part that brought nothing,
    /// `stopAfter`), it ends the download on native's side with `GET …?cancel`, as the shim does
    /// (docs/protocol.md, "Download in parts").
    /// - Parameters:
    ///   - token: the placeholder's token from native.
    ///   - size: the placeholder's size.
    ///   - origin: the `Origin` header; default ``origin``.
    ///   - stopAfter: stop after the part in which this many bytes came, as a page that cancels its read.
    /// - Returns: the status of each request (parts, then `?cancel` if sent) and the bytes read.
    public func downloadParts(_ token: String, size: Int, origin: String? = nil, stopAfter: Int? = nil) async -> (
        statuses: [Int], body: Data
    ) {
        let origin = origin ?? self.origin
        var statuses: [Int] = []
        var body = Data()
        var complete = true
        while body.count < size {
            let response = await transfers.handle(
                BinaryRequest(method: "GET", url: Self.url(token, offset: body.count), origin: origin))
            statuses.append(response.status)
            let start = body.count
            do {
                while let chunk = try await response.body.read(maxBytes: 64 * 1024) { body.append(chunk) }
            } catch {
                complete = false
                break
            }
            if response.status != 200 || body.count == start || stopAfter.map({ body.count >= $0 }) == true {
                complete = response.status == 200 && body.count >= size
                break
            }
        }
        if !complete {
            let told = await transfers.handle(
                BinaryRequest(method: "GET", url: Self.url(token) + "?cancel", origin: origin))
            statuses.append(told.status)
        }
        return (statuses, body)
    }
}
