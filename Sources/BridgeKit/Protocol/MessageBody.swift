public import Foundation

/// The body of one script message, as a host received it from the engine.
///
/// Pages may post the protocol message as a JSON string (what `js/webbridge.js` does) or as an
/// object; both route identically (field case R15).
public enum MessageBody: Sendable {
    /// A posted JavaScript string, unquoted: its content is the message's JSON text.
    case string(String)
    /// The JSON text of the posted value (an object, array, number, …). A JSON *string* here is
    /// unwrapped once, as if it had arrived as ``string(_:)``.
    case json(Data)
    /// Nothing was posted (`postMessage(undefined)`, a nil body).
    case absent

    /// Converts a Foundation object as WebKit hands it to a `WKScriptMessageHandler`
    /// (`NSString`, `NSDictionary`, `NSArray`, `NSNumber`, `NSNull`, or `nil`).
    ///
    /// Never traps (field case R13): values `JSONSerialization` cannot write become
    /// ``absent``, which the router answers as an invalid message.
    public init(foundationObject: Any?) {
        switch foundationObject {
        case nil:
            self = .absent
        case let text as String:
            self = .string(text)
        case let object? where JSONSerialization.isValidJSONObject(object):
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]) {
                self = .json(data)
            } else {
                self = .absent
            }
        case is NSNull:
            self = .json(Data("null".utf8))
        case let number as NSNumber:
            self = .json(Data(number.stringValue.utf8))
        default:
            self = .absent
        }
    }

    /// The size of the body in bytes of UTF-8.
    public var byteCount: Int {
        switch self {
        case .string(let text): text.utf8.count
        case .json(let data): data.count
        case .absent: 0
        }
    }
}
