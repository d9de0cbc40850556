// Stub module `UIKit` (iOS only): exactly the UIKit declarations that BridgeKit's sources
// (`UIKitAlertPresenter`) and the Swift code blocks of docs/ use, plus the overloads next to them.
// Type-checking only: nothing here is ever run. Signatures follow the iOS 18 SDK (Xcode 16)
// as Swift imports them; provenance per declaration (header name, availability); ../README.md
// says how to refresh them from the real SDK. Every class here is `NS_SWIFT_UI_ACTOR` in the
// SDK (UIKit marks UIResponder, UIView, UIViewController, UIBarItem, UIMenuElement), which Swift
// imports as `@MainActor`, so these are `@MainActor` (and therefore `Sendable`).
@_exported import FoundationAppleOnly

// MARK: UIResponder.h, UIView.h, UIWindow.h

/// SDK: `@MainActor open class UIResponder: NSObject` (UIResponder.h; iOS 2).
@MainActor
open class UIResponder: NSObject {}

/// SDK: `@MainActor open class UIView: UIResponder` (UIView.h; iOS 2).
@MainActor
open class UIView: UIResponder {
    /// SDK: `public struct UIView.AutoresizingMask: OptionSet, Sendable` (UIView.h, `UIViewAutoresizing`).
    public struct AutoresizingMask: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let flexibleLeftMargin = AutoresizingMask(rawValue: 1 << 0)
        public static let flexibleWidth = AutoresizingMask(rawValue: 1 << 1)
        public static let flexibleRightMargin = AutoresizingMask(rawValue: 1 << 2)
        public static let flexibleTopMargin = AutoresizingMask(rawValue: 1 << 3)
        public static let flexibleHeight = AutoresizingMask(rawValue: 1 << 4)
        public static let flexibleBottomMargin = AutoresizingMask(rawValue: 1 << 5)
    }

    /// SDK: `public init(frame: CGRect)` (iOS 2).
    public init(frame: CGRect) { super.init() }
    /// SDK: `public init?(coder: NSCoder)` (NSCoding; iOS 2).
    public required init?(coder: NSCoder) { super.init() }
    /// SDK: `open var frame: CGRect` (iOS 2).
    open var frame: CGRect = .zero
    /// SDK: `open var bounds: CGRect` (iOS 2).
    open var bounds: CGRect = .zero
    /// SDK: `open var autoresizingMask: UIView.AutoresizingMask` (iOS 2).
    open var autoresizingMask: AutoresizingMask = []
    /// SDK: `open var isHidden: Bool` (iOS 2).
    open var isHidden: Bool = false
    /// SDK: `open var window: UIWindow? { get }` (iOS 2).
    open var window: UIWindow? { nil }
    /// SDK: `open func addSubview(_ view: UIView)` (iOS 2).
    open func addSubview(_ view: UIView) {}
    /// SDK: `open func removeFromSuperview()` (iOS 2).
    open func removeFromSuperview() {}
    /// SDK: `open func didMoveToWindow()` (iOS 2).
    open func didMoveToWindow() {}
}

/// SDK: `@MainActor open class UIWindow: UIView` (UIWindow.h; iOS 2).
@MainActor
open class UIWindow: UIView {}

/// SDK: `@MainActor open class UIImage: NSObject` (UIImage.h; iOS 2). Sendable in the SDK (iOS 16 annotates it).
@MainActor
open class UIImage: NSObject {}

// MARK: UIViewController.h

/// SDK: `@MainActor open class UIViewController: UIResponder` (UIViewController.h; iOS 2).
@MainActor
open class UIViewController: UIResponder {
    /// SDK: `public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?)` (iOS 2).
    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) { super.init() }
    /// SDK: `public required init?(coder: NSCoder)` (iOS 2).
    public required init?(coder: NSCoder) { super.init() }
    /// SDK: `open var view: UIView!` (iOS 2).
    open var view: UIView! = UIView(frame: .zero)
    /// SDK: `open var viewIfLoaded: UIView? { get }` (iOS 9).
    @available(iOS 9.0, *)
    open var viewIfLoaded: UIView? { nil }
    /// SDK: `open var title: String?` (iOS 2).
    open var title: String?
    /// SDK: `open var navigationItem: UINavigationItem { get }` (UINavigationController.h; iOS 2).
    open var navigationItem: UINavigationItem { UINavigationItem(title: "") }
    /// SDK: `open var navigationController: UINavigationController? { get }` (iOS 2).
    open var navigationController: UINavigationController? { nil }
    /// SDK: `open var presentedViewController: UIViewController? { get }` (iOS 5).
    open var presentedViewController: UIViewController? { nil }
    /// SDK: `open var presentingViewController: UIViewController? { get }` (iOS 5).
    open var presentingViewController: UIViewController? { nil }
    /// SDK: `open var isBeingPresented: Bool { get }` (iOS 5).
    open var isBeingPresented: Bool { false }
    /// SDK: `open var isBeingDismissed: Bool { get }` (iOS 5).
    open var isBeingDismissed: Bool { false }
    /// SDK: `open var isMovingFromParent: Bool { get }` (iOS 5).
    open var isMovingFromParent: Bool { false }
    /// SDK: `open func viewDidLoad()` (iOS 2).
    open func viewDidLoad() {}
    /// SDK: `open func viewDidAppear(_ animated: Bool)` (iOS 2).
    open func viewDidAppear(_ animated: Bool) {}
    /// SDK: `open func viewDidDisappear(_ animated: Bool)` (iOS 2).
    open func viewDidDisappear(_ animated: Bool) {}
    /// SDK: `open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool,
    /// completion: (() -> Void)? = nil)` (iOS 5; the block is not annotated, so it imports as a
    /// plain nonisolated closure; `NS_SWIFT_DISABLE_ASYNC`).
    open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil) {}
    /// SDK: `open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil)` (iOS 5).
    open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) {}
}

/// SDK: `@MainActor open class UINavigationController: UIViewController` (iOS 2).
@MainActor
open class UINavigationController: UIViewController {}

/// SDK: `@MainActor open class UINavigationItem: NSObject` (UINavigationItem.h; iOS 2).
@MainActor
open class UINavigationItem: NSObject {
    /// SDK: `public init(title: String)` (iOS 2).
    public init(title: String) { super.init() }
    /// SDK: `open var leftBarButtonItem: UIBarButtonItem?` (iOS 2).
    open var leftBarButtonItem: UIBarButtonItem?
    /// SDK: `open var rightBarButtonItem: UIBarButtonItem?` (iOS 2).
    open var rightBarButtonItem: UIBarButtonItem?
}

// MARK: UIMenuElement.h, UIAction.h, UIBarItem.h, UIBarButtonItem.h

/// SDK: `@MainActor open class UIMenuElement: NSObject` (UIMenuElement.h; iOS 13).
@available(iOS 13.0, *)
@MainActor
open class UIMenuElement: NSObject {}

/// SDK: `@MainActor open class UIMenu: UIMenuElement` (UIMenu.h; iOS 13).
@available(iOS 13.0, *)
@MainActor
open class UIMenu: UIMenuElement {}

/// SDK: `public typealias UIActionHandler = (UIAction) -> Void` (UIAction.h; iOS 13).
@available(iOS 13.0, *)
public typealias UIActionHandler = (UIAction) -> Void

/// SDK: `@MainActor open class UIAction: UIMenuElement` (UIAction.h; iOS 13).
@available(iOS 13.0, *)
@MainActor
open class UIAction: UIMenuElement {
    /// SDK: `open var title: String` (iOS 13).
    open var title: String = ""
    /// SDK: `public convenience init(title: String = "", image: UIImage? = nil, identifier:
    /// UIAction.Identifier? = nil, discoverabilityTitle: String? = nil, attributes:
    /// UIMenuElement.Attributes = [], state: UIMenuElement.State = .off, handler: @escaping
    /// UIActionHandler)` (iOS 13; identifier, attributes and state omitted here: unused).
    public convenience init(title: String = "", image: UIImage? = nil, discoverabilityTitle: String? = nil,
                            handler: @escaping UIActionHandler) {
        self.init()
        self.title = title
    }
}

/// SDK: `@MainActor open class UIBarItem: NSObject` (UIBarItem.h; iOS 2).
@MainActor
open class UIBarItem: NSObject {
    /// SDK: `open var isEnabled: Bool` (iOS 2).
    open var isEnabled: Bool = true
    /// SDK: `open var title: String?` (iOS 2).
    open var title: String?
}

/// SDK: `@MainActor open class UIBarButtonItem: UIBarItem` (UIBarButtonItem.h; iOS 2).
@MainActor
open class UIBarButtonItem: UIBarItem {
    /// SDK: `public convenience init(primaryAction: UIAction?)` (iOS 14). The action's title
    /// and image become the item's.
    @available(iOS 14.0, *)
    public convenience init(primaryAction: UIAction?) { self.init() }
    /// SDK: `public convenience init(title: String? = nil, image: UIImage? = nil, primaryAction:
    /// UIAction? = nil, menu: UIMenu? = nil)` (iOS 14). With a primary action, the action's
    /// title wins over `title` (UIBarButtonItem.h: "the primaryAction's title and image are
    /// used"), so `title` is ignored: set the title on the `UIAction`.
    @available(iOS 14.0, *)
    public convenience init(title: String? = nil, image: UIImage? = nil, primaryAction: UIAction? = nil, menu: UIMenu? = nil) {
        self.init()
    }
    /// SDK: `open var primaryAction: UIAction?` (iOS 14).
    @available(iOS 14.0, *)
    open var primaryAction: UIAction?
    /// SDK: `open var isHidden: Bool` (iOS 16). Here to give the availability check teeth.
    @available(iOS 16.0, *)
    open var isHidden: Bool { get { false } set {} }
}

// MARK: UIProgressView.h

/// SDK: `@MainActor open class UIProgressView: UIView` (UIProgressView.h; iOS 2).
@MainActor
open class UIProgressView: UIView {
    /// SDK: `public enum UIProgressView.Style: Int, Sendable` (`UIProgressViewStyle`).
    public enum Style: Int, Sendable {
        case `default` = 0
        case bar = 2
    }
    /// SDK: `public convenience init(progressViewStyle style: UIProgressView.Style)` (iOS 2).
    public convenience init(progressViewStyle style: Style) { self.init(frame: .zero) }
    /// SDK: `open var progress: Float` (iOS 2).
    open var progress: Float = 0
    /// SDK: `open func setProgress(_ progress: Float, animated: Bool)` (iOS 5).
    open func setProgress(_ progress: Float, animated: Bool) {}
}

// MARK: UIAlertController.h

/// SDK: `@MainActor open class UIAlertAction: NSObject, NSCopying` (UIAlertController.h; iOS 8).
@MainActor
open class UIAlertAction: NSObject {
    /// SDK: `public enum UIAlertAction.Style: Int, Sendable` (`UIAlertActionStyle`).
    public enum Style: Int, Sendable {
        case `default` = 0, cancel, destructive
    }
    /// SDK: `public convenience init(title: String?, style: UIAlertAction.Style, handler:
    /// ((UIAlertAction) -> Void)? = nil)` (iOS 8). The block is not annotated: a plain closure
    /// (a closure written in a main-actor context inherits that isolation).
    public convenience init(title: String?, style: Style, handler: ((UIAlertAction) -> Void)? = nil) { self.init() }
    /// SDK: `open var title: String? { get }` (iOS 8).
    open var title: String? { nil }
    /// SDK: `open var isEnabled: Bool` (iOS 8).
    open var isEnabled: Bool = true
}

/// SDK: `@MainActor open class UIAlertController: UIViewController` (UIAlertController.h; iOS 8).
/// The header says: "The UIAlertController class is intended to be used as-is and does not
/// support subclassing"; Swift cannot enforce that, the stub does not either.
@MainActor
open class UIAlertController: UIViewController {
    /// SDK: `public enum UIAlertController.Style: Int, Sendable` (`UIAlertControllerStyle`).
    public enum Style: Int, Sendable {
        case actionSheet = 0, alert
    }
    /// SDK: `public convenience init(title: String?, message: String?, preferredStyle:
    /// UIAlertController.Style)` (iOS 8).
    public convenience init(title: String?, message: String?, preferredStyle: Style) {
        self.init(nibName: nil, bundle: nil)
    }
    /// SDK: `open func addAction(_ action: UIAlertAction)` (iOS 8).
    open func addAction(_ action: UIAlertAction) {}
    /// SDK: `open var actions: [UIAlertAction] { get }` (iOS 8).
    open var actions: [UIAlertAction] { [] }
    /// SDK: `open var preferredAction: UIAlertAction?` (iOS 9).
    @available(iOS 9.0, *)
    open var preferredAction: UIAlertAction?
    /// SDK: `open var message: String?` (iOS 8).
    open var message: String?
}
