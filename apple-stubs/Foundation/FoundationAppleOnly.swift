// Stub module `FoundationAppleOnly`: the few declarations of Apple's Foundation that
// swift-corelibs-foundation on Linux lacks and that BridgeKit's Apple sources use. The WebKit,
// UIKit and AppKit stubs re-export it (with Foundation), as the real frameworks re-export Foundation.
// Type-checking only: nothing here is ever run. Provenance per declaration; see ../README.md.
@_exported import Foundation
#if canImport(FoundationNetworking)
    // URLRequest, HTTPCookie, URLResponse live in Foundation on Apple platforms.
    @_exported import FoundationNetworking
#endif

// Source: Foundation overlay `NSObject.swift` (swift-corelibs-foundation has no KVO; the Darwin
// overlay ships in the SDK: Foundation.swiftmodule of the iOS 18 / macOS 15 SDK, Xcode 16).
// `extension NSObject: _KeyValueCodingAndObserving {}`; iOS 11, macOS 10.13 (block KVO).

/// SDK: `public protocol _KeyValueCodingAndObserving {}` (Foundation overlay, NSObject.swift).
public protocol _KeyValueCodingAndObserving {}

extension NSObject: _KeyValueCodingAndObserving {}

/// SDK: `public struct NSKeyValueObservingOptions: OptionSet, Sendable` (NSKeyValueObserving.h,
/// `NS_OPTIONS(NSUInteger, NSKeyValueObservingOptions)`; iOS 2, macOS 10.0).
public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let new = NSKeyValueObservingOptions(rawValue: 0x01)
    public static let old = NSKeyValueObservingOptions(rawValue: 0x02)
    public static let initial = NSKeyValueObservingOptions(rawValue: 0x04)
    public static let prior = NSKeyValueObservingOptions(rawValue: 0x08)
}

/// SDK: `public enum NSKeyValueChange: UInt, Sendable` (NSKeyValueObserving.h).
public enum NSKeyValueChange: UInt, Sendable {
    case setting = 1, insertion, removal, replacement
}

/// SDK (Foundation overlay, NSObject.swift): `public struct NSKeyValueObservedChange<Value>`;
/// iOS 11, macOS 10.13. Not Sendable (the overlay declares no conformance).
public struct NSKeyValueObservedChange<Value> {
    public typealias Kind = NSKeyValueChange
    public let kind: Kind
    public let newValue: Value?
    public let oldValue: Value?
    public let indexes: IndexSet?
    public let isPrior: Bool
}

/// SDK (Foundation overlay, NSObject.swift): `public class NSKeyValueObservation: NSObject`;
/// iOS 11, macOS 10.13. Not Sendable. `invalidate()` ends the observation; so does `deinit`.
@available(iOS 11.0, macOS 10.13, *)
public class NSKeyValueObservation: NSObject {
    /// SDK: `@objc public func invalidate()`.
    public func invalidate() {}
}

@available(iOS 11.0, macOS 10.13, *)
extension _KeyValueCodingAndObserving {
    /// SDK (Xcode 16 Foundation overlay, NSObject.swift): `@preconcurrency public func
    /// observe<Value>(_ keyPath: KeyPath<Self, Value>, options: NSKeyValueObservingOptions = [],
    /// changeHandler: @escaping @Sendable (Self, NSKeyValueObservedChange<Value>) -> Void)
    /// -> NSKeyValueObservation`. The handler is `@Sendable` and nonisolated: it runs on the
    /// thread of the change.
    @preconcurrency
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>,
        options: NSKeyValueObservingOptions = [],
        changeHandler: @escaping @Sendable (Self, NSKeyValueObservedChange<Value>) -> Void
    ) -> NSKeyValueObservation {
        NSKeyValueObservation()
    }
}
