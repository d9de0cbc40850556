#if WebKitGTK
/// One HTTP header field as WebKit reports it.
public struct GTKHTTPHeader: Sendable, Equatable {
    /// The field name as received.
    public let name: String
    /// The field value.
    public let value: String

    /// Creates a header value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
#endif
