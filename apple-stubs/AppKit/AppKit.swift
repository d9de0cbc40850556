// Stub module `AppKit` (macOS only): exactly the AppKit declarations that BridgeKit's sources
// (`AppKitAlertPresenter`) and the Swift code blocks of docs/ use, plus the overloads next to
// them. Type-checking only: nothing here is ever run. Signatures follow the macOS 15 SDK
// (Xcode 16) as Swift imports them; provenance per declaration (header name, availability);
// ../README.md says how to refresh them from the real SDK. NSResponder, NSView, NSWindow,
// NSViewController and NSAlert are `NS_SWIFT_UI_ACTOR` in the SDK, imported as `@MainActor`.
@_exported import FoundationAppleOnly

// MARK: NSResponder.h, NSView.h, NSWindow.h

/// SDK: `@MainActor open class NSResponder: NSObject` (NSResponder.h; macOS 10.0).
@MainActor
open class NSResponder: NSObject {}

/// SDK: `@MainActor open class NSView: NSResponder` (NSView.h; macOS 10.0).
@MainActor
open class NSView: NSResponder {
    /// SDK: `public struct NSView.AutoresizingMask: OptionSet, Sendable` (`NSAutoresizingMaskOptions`).
    public struct AutoresizingMask: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let minXMargin = AutoresizingMask(rawValue: 1)
        public static let width = AutoresizingMask(rawValue: 2)
        public static let maxXMargin = AutoresizingMask(rawValue: 4)
        public static let minYMargin = AutoresizingMask(rawValue: 8)
        public static let height = AutoresizingMask(rawValue: 16)
        public static let maxYMargin = AutoresizingMask(rawValue: 32)
    }
    /// SDK: `public init(frame frameRect: NSRect)` (macOS 10.0).
    public init(frame frameRect: NSRect) { super.init() }
    /// SDK: `public required init?(coder: NSCoder)` (macOS 10.0).
    public required init?(coder: NSCoder) { super.init() }
    /// SDK: `open var frame: NSRect` (macOS 10.0).
    open var frame: NSRect = .zero
    /// SDK: `open var bounds: NSRect` (macOS 10.0).
    open var bounds: NSRect = .zero
    /// SDK: `open var autoresizingMask: NSView.AutoresizingMask` (macOS 10.0).
    open var autoresizingMask: AutoresizingMask = []
    /// SDK: `open var isHidden: Bool` (macOS 10.0).
    open var isHidden: Bool = false
    /// SDK: `open var window: NSWindow? { get }` (macOS 10.0).
    open var window: NSWindow? { nil }
    /// SDK: `open func addSubview(_ view: NSView)` (macOS 10.0).
    open func addSubview(_ view: NSView) {}
}

/// SDK: `public typealias NSRect = CGRect` (NSGeometry.h, Foundation).
public typealias NSRect = CGRect

/// SDK: `@MainActor open class NSWindow: NSResponder` (NSWindow.h; macOS 10.0).
@MainActor
open class NSWindow: NSResponder {
    /// SDK: `open var title: String` (macOS 10.0).
    open var title: String = ""
    /// SDK: `open var attachedSheet: NSWindow? { get }` (macOS 10.0).
    open var attachedSheet: NSWindow? { nil }
    /// SDK: `open var sheetParent: NSWindow? { get }` (macOS 10.9).
    open var sheetParent: NSWindow? { nil }
    /// SDK: `open func beginSheet(_ sheetWindow: NSWindow, completionHandler handler:
    /// ((NSApplication.ModalResponse) -> Void)? = nil)` (macOS 10.9).
    open func beginSheet(_ sheetWindow: NSWindow, completionHandler handler: ((NSApplication.ModalResponse) -> Void)? = nil) {}
    /// SDK: `open func endSheet(_ sheetWindow: NSWindow)` (macOS 10.9).
    open func endSheet(_ sheetWindow: NSWindow) {}
    /// SDK: `open func endSheet(_ sheetWindow: NSWindow, returnCode: NSApplication.ModalResponse)` (macOS 10.9).
    open func endSheet(_ sheetWindow: NSWindow, returnCode: NSApplication.ModalResponse) {}
}

/// SDK: `@MainActor open class NSApplication: NSResponder` (NSApplication.h; macOS 10.0).
@MainActor
open class NSApplication: NSResponder {
    /// SDK: `public struct NSApplication.ModalResponse: Hashable, Equatable, RawRepresentable,
    /// Sendable` (`NSModalResponse`, an `NSInteger`; macOS 10.9).
    public struct ModalResponse: Hashable, RawRepresentable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public init(_ rawValue: Int) { self.rawValue = rawValue }
        /// SDK: `NSModalResponseStop` (-1000).
        public static let stop = ModalResponse(rawValue: -1000)
        /// SDK: `NSModalResponseAbort` (-1001).
        public static let abort = ModalResponse(rawValue: -1001)
        /// SDK: `NSModalResponseContinue` (-1002).
        public static let `continue` = ModalResponse(rawValue: -1002)
        /// SDK: `NSModalResponseOK` (1).
        public static let OK = ModalResponse(rawValue: 1)
        /// SDK: `NSModalResponseCancel` (0).
        public static let cancel = ModalResponse(rawValue: 0)
        /// SDK: `NSAlertFirstButtonReturn` (1000; NSAlert.h).
        public static let alertFirstButtonReturn = ModalResponse(rawValue: 1000)
        /// SDK: `NSAlertSecondButtonReturn` (1001; NSAlert.h).
        public static let alertSecondButtonReturn = ModalResponse(rawValue: 1001)
        /// SDK: `NSAlertThirdButtonReturn` (1002; NSAlert.h). Buttons after the third return
        /// `alertThirdButtonReturn.rawValue + n`.
        public static let alertThirdButtonReturn = ModalResponse(rawValue: 1002)
    }
}

// MARK: NSViewController.h

/// SDK: `public typealias NSNib.Name = String` (NSNib.h; macOS 10.13).
@MainActor
open class NSNib: NSObject {
    public typealias Name = String
}

/// SDK: `@MainActor open class NSViewController: NSResponder` (NSViewController.h; macOS 10.5).
@MainActor
open class NSViewController: NSResponder {
    /// SDK: `public init(nibName nibNameOrNil: NSNib.Name?, bundle nibBundleOrNil: Bundle?)` (macOS 10.5).
    public init(nibName nibNameOrNil: NSNib.Name?, bundle nibBundleOrNil: Bundle?) { super.init() }
    /// SDK: `public required init?(coder: NSCoder)` (macOS 10.5).
    public required init?(coder: NSCoder) { super.init() }
    /// SDK: `open var view: NSView` (macOS 10.5).
    open var view: NSView = NSView(frame: .zero)
    /// SDK: `open var viewIfLoaded: NSView? { get }` (macOS 14).
    @available(macOS 14.0, *)
    open var viewIfLoaded: NSView? { nil }
    /// SDK: `open var title: String?` (macOS 10.5).
    open var title: String?
    /// SDK: `open func loadView()` (macOS 10.5).
    open func loadView() {}
    /// SDK: `open func viewDidLoad()` (macOS 10.10).
    open func viewDidLoad() {}
    /// SDK: `open func viewDidAppear()` (macOS 10.10).
    open func viewDidAppear() {}
    /// SDK: `open func viewWillDisappear()` (macOS 10.10).
    open func viewWillDisappear() {}
    /// SDK: `open func viewDidDisappear()` (macOS 10.10).
    open func viewDidDisappear() {}
}

// MARK: NSButton.h, NSAlert.h

/// SDK: `@MainActor open class NSButton: NSControl` (NSButton.h; macOS 10.0); NSControl elided.
@MainActor
open class NSButton: NSView {
    /// SDK: `open var title: String` (macOS 10.0).
    open var title: String = ""
    /// SDK: `open var keyEquivalent: String` (macOS 10.0).
    open var keyEquivalent: String = ""
}

/// SDK: `@MainActor open class NSAlert: NSObject` (NSAlert.h; macOS 10.3).
@MainActor
open class NSAlert: NSObject {
    /// SDK: `public enum NSAlert.Style: UInt, Sendable` (`NSAlertStyle`).
    public enum Style: UInt, Sendable {
        case warning = 0, informational, critical
    }
    /// SDK: `open var messageText: String` (macOS 10.3).
    open var messageText: String = ""
    /// SDK: `open var informativeText: String` (macOS 10.3).
    open var informativeText: String = ""
    /// SDK: `open var alertStyle: NSAlert.Style` (macOS 10.3).
    open var alertStyle: Style = .warning
    /// SDK: `open var buttons: [NSButton] { get }` (macOS 10.3).
    open var buttons: [NSButton] { [] }
    /// SDK: `open var window: NSWindow { get }` (macOS 10.3).
    open var window: NSWindow { NSWindow() }
    /// SDK: `@discardableResult open func addButton(withTitle title: String) -> NSButton` (macOS 10.3).
    @discardableResult
    open func addButton(withTitle title: String) -> NSButton { NSButton(frame: .zero) }
    /// SDK: `open func runModal() -> NSApplication.ModalResponse` (macOS 10.3).
    open func runModal() -> NSApplication.ModalResponse { .alertFirstButtonReturn }
    /// SDK: `open func beginSheetModal(for sheetWindow: NSWindow, completionHandler handler:
    /// ((NSApplication.ModalResponse) -> Void)? = nil)` (macOS 10.9). The block is not
    /// annotated: a plain closure, called on the main thread when the sheet ends, by a button
    /// or by `endSheet(_:returnCode:)`.
    open func beginSheetModal(for sheetWindow: NSWindow, completionHandler handler: ((NSApplication.ModalResponse) -> Void)? = nil) {}
}
