import Foundation

// The views, colours and alerts app code makes and hands around. Nothing draws them and no one
// taps them: an alert's actions never run, a button sends nothing.

/// A colour, known by its name or components.
open class UIColor: NSObject, @unchecked Sendable {
    let name: String

    init(name: String) { self.name = name }
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        name = "rgba(\(red),\(green),\(blue),\(alpha))"
    }
    public init(white: CGFloat, alpha: CGFloat) { name = "white(\(white),\(alpha))" }
    public init(hue: CGFloat, saturation: CGFloat, brightness: CGFloat, alpha: CGFloat) {
        name = "hsba(\(hue),\(saturation),\(brightness),\(alpha))"
    }
    /// A colour of the app's asset catalog: there is none here, so none is found.
    public convenience init?(named name: String) { return nil }
    /// A colour that follows the interface style: here, the light one.
    public convenience init(dynamicProvider: @escaping (UITraitCollection) -> UIColor) {
        self.init(name: dynamicProvider(UITraitCollection()).name)
    }

    open func withAlphaComponent(_ alpha: CGFloat) -> UIColor { UIColor(name: "\(name)@\(alpha)") }
    open override var description: String { "UIColor(\(name))" }
    open override func isEqual(_ object: Any?) -> Bool { (object as? UIColor)?.name == name }
    open override var hash: Int { name.hashValue }

    public static let black = UIColor(name: "black"), white = UIColor(name: "white"), clear = UIColor(name: "clear")
    public static let gray = UIColor(name: "gray"), lightGray = UIColor(name: "lightGray")
    public static let darkGray = UIColor(name: "darkGray")
    public static let red = UIColor(name: "red"), green = UIColor(name: "green"), blue = UIColor(name: "blue")
    public static let orange = UIColor(name: "orange"), yellow = UIColor(name: "yellow")
    public static let purple = UIColor(name: "purple"), brown = UIColor(name: "brown")
    public static let systemRed = UIColor(name: "systemRed"), systemGreen = UIColor(name: "systemGreen")
    public static let systemBlue = UIColor(name: "systemBlue"), systemOrange = UIColor(name: "systemOrange")
    public static let systemYellow = UIColor(name: "systemYellow"), systemPink = UIColor(name: "systemPink")
    public static let systemPurple = UIColor(name: "systemPurple"), systemTeal = UIColor(name: "systemTeal")
    public static let systemIndigo = UIColor(name: "systemIndigo"), systemGray = UIColor(name: "systemGray")
    public static let systemGray2 = UIColor(name: "systemGray2"), systemGray3 = UIColor(name: "systemGray3")
    public static let systemGray4 = UIColor(name: "systemGray4"), systemGray5 = UIColor(name: "systemGray5")
    public static let systemGray6 = UIColor(name: "systemGray6")
    public static let label = UIColor(name: "label"), secondaryLabel = UIColor(name: "secondaryLabel")
    public static let tertiaryLabel = UIColor(name: "tertiaryLabel"), placeholderText = UIColor(name: "placeholderText")
    public static let link = UIColor(name: "link"), separator = UIColor(name: "separator")
    public static let systemBackground = UIColor(name: "systemBackground")
    public static let secondarySystemBackground = UIColor(name: "secondarySystemBackground")
    public static let tertiarySystemBackground = UIColor(name: "tertiarySystemBackground")
    public static let systemGroupedBackground = UIColor(name: "systemGroupedBackground")
    public static let secondarySystemGroupedBackground = UIColor(name: "secondarySystemGroupedBackground")
    public static let systemFill = UIColor(name: "systemFill"), tintColor = UIColor(name: "tintColor")
}

/// An image as UIKit holds it; nothing is drawn.
open class UIImage: NSObject, @unchecked Sendable {
    public init?(named name: String) {}
    public init?(systemName name: String) {}
    public init?(data: Data) {}
}

/// The interface's traits: light, as a phone starts.
open class UITraitCollection: NSObject, @unchecked Sendable {
    open var userInterfaceStyle = UIUserInterfaceStyle.light
}

public enum UIUserInterfaceStyle: Int, Sendable {
    case unspecified, light, dark
}

public enum UIModalPresentationStyle: Int, Sendable {
    case fullScreen = 0, pageSheet, formSheet, currentContext, custom, overFullScreen, overCurrentContext, popover
    case none = -1, automatic = -2
}

/// A font, known by its size.
open class UIFont: NSObject, @unchecked Sendable {
    public let pointSize: CGFloat
    init(size: CGFloat) { pointSize = size }
    open class func systemFont(ofSize fontSize: CGFloat) -> UIFont { UIFont(size: fontSize) }
    open class func boldSystemFont(ofSize fontSize: CGFloat) -> UIFont { UIFont(size: fontSize) }
}

/// A view that shows nothing; it keeps what code sets on it and its subviews.
open class UIView: NSObject {
    open var frame: CGRect
    open var bounds: CGRect { CGRect(origin: .zero, size: frame.size) }
    open var backgroundColor: UIColor?
    open var tintColor: UIColor!
    open var isHidden = false
    open var alpha: CGFloat = 1
    open var tag = 0
    open var isUserInteractionEnabled = true
    open var translatesAutoresizingMaskIntoConstraints = true
    open private(set) var subviews: [UIView] = []
    open private(set) weak var superview: UIView?

    public init(frame: CGRect) {
        self.frame = frame
        super.init()
    }

    public required init?(coder: NSCoder) {
        frame = .zero
        super.init()
    }

    public convenience override init() { self.init(frame: .zero) }

    open func addSubview(_ view: UIView) {
        view.removeFromSuperview()
        subviews.append(view)
        view.superview = self
    }

    open func removeFromSuperview() {
        superview?.subviews.removeAll { $0 === self }
        superview = nil
    }

    open func setNeedsLayout() {}
    open func layoutIfNeeded() {}
}

/// A button no one taps.
open class UIButton: UIView {
    public enum ButtonType: Int, Sendable {
        case custom = 0, system, detailDisclosure, infoLight, infoDark, contactAdd, close
    }

    public convenience init(type buttonType: ButtonType) { self.init(frame: .zero) }
    open func setTitle(_ title: String?, for state: UIControl.State) {}
    open func setTitleColor(_ color: UIColor?, for state: UIControl.State) {}
}

/// What a control is doing, and what it sends: only the names, as nothing happens.
public enum UIControl {
    public struct State: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let normal = State([]), highlighted = State(rawValue: 1), disabled = State(rawValue: 2)
        public static let selected = State(rawValue: 4)
    }

    public struct Event: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let touchUpInside = Event(rawValue: 1 << 6), valueChanged = Event(rawValue: 1 << 12)
    }
}

/// A stack of view controllers; pushing and popping show nothing.
open class UINavigationController: UIViewController {
    open var viewControllers: [UIViewController] = []
    open var topViewController: UIViewController? { viewControllers.last }
    open var visibleViewController: UIViewController? { presentedViewController ?? topViewController }

    public init(rootViewController: UIViewController) {
        viewControllers = [rootViewController]
        super.init(nibName: nil, bundle: nil)
    }

    public required init?(coder: NSCoder) { super.init(coder: coder) }

    open func pushViewController(_ viewController: UIViewController, animated: Bool) {
        viewControllers.append(viewController)
    }

    @discardableResult open func popViewController(animated: Bool) -> UIViewController? {
        viewControllers.count > 1 ? viewControllers.removeLast() : nil
    }
}

/// Tabs of view controllers; the first is selected.
open class UITabBarController: UIViewController {
    open var viewControllers: [UIViewController]?
    open var selectedIndex = 0
    open var selectedViewController: UIViewController? {
        guard let controllers = viewControllers, controllers.indices.contains(selectedIndex) else { return nil }
        return controllers[selectedIndex]
    }
}

/// An alert or action sheet: presented, it shows nothing, and no one picks an action.
open class UIAlertController: UIViewController {
    public enum Style: Int, Sendable {
        case actionSheet = 0, alert
    }

    open var message: String?
    public let preferredStyle: Style
    open private(set) var actions: [UIAlertAction] = []
    open private(set) var textFields: [UITextField]? = nil

    public init(title: String?, message: String?, preferredStyle: Style) {
        self.message = message
        self.preferredStyle = preferredStyle
        super.init(nibName: nil, bundle: nil)
        self.title = title
    }

    public required init?(coder: NSCoder) {
        preferredStyle = .alert
        super.init(coder: coder)
    }

    open func addAction(_ action: UIAlertAction) { actions.append(action) }
    open func addTextField(configurationHandler: ((UITextField) -> Void)? = nil) {
        let field = UITextField(frame: .zero)
        configurationHandler?(field)
        textFields = (textFields ?? []) + [field]
    }
}

/// One of an alert's choices; its handler runs when it is picked, which it never is here.
open class UIAlertAction: NSObject {
    public enum Style: Int, Sendable {
        case `default` = 0, cancel, destructive
    }

    public let title: String?
    public let style: Style
    public init(title: String?, style: Style, handler: ((UIAlertAction) -> Void)? = nil) {
        self.title = title
        self.style = style
    }
}

/// A text field no one types into.
open class UITextField: UIView {
    open var text: String?
    open var placeholder: String?
    open var isSecureTextEntry = false
}

/// The share sheet: presented, it shares nothing.
open class UIActivityViewController: UIViewController {
    public init(activityItems: [Any], applicationActivities: [UIActivity]?) {
        super.init(nibName: nil, bundle: nil)
    }

    public required init?(coder: NSCoder) { super.init(coder: coder) }
}

/// A service a share sheet offers beside the system's.
open class UIActivity: NSObject {}

/// What a document interaction asks its app; nothing asks here.
public protocol UIDocumentInteractionControllerDelegate: AnyObject {
    func documentInteractionControllerViewControllerForPreview(_ controller: UIDocumentInteractionController)
        -> UIViewController
}

extension UIDocumentInteractionControllerDelegate {
    public func documentInteractionControllerViewControllerForPreview(
        _ controller: UIDocumentInteractionController
    ) -> UIViewController { UIViewController() }
}

/// Previews or opens a file in another app: nothing opens here.
open class UIDocumentInteractionController: NSObject {
    open var url: URL?
    open weak var delegate: UIDocumentInteractionControllerDelegate?
    public init(url: URL) { self.url = url }
    open func presentPreview(animated: Bool) -> Bool { false }
    open func presentOpenInMenu(from rect: CGRect, in view: UIView, animated: Bool) -> Bool { false }
    open func presentOptionsMenu(from rect: CGRect, in view: UIView, animated: Bool) -> Bool { false }
}

/// How navigation bars look; kept, and nothing draws them.
open class UINavigationBarAppearance: NSObject {
    open var backgroundColor: UIColor?
    open var titleTextAttributes: [NSAttributedString.Key: Any] = [:]
    open var largeTitleTextAttributes: [NSAttributedString.Key: Any] = [:]
    open func configureWithOpaqueBackground() {}
    open func configureWithTransparentBackground() {}
    open func configureWithDefaultBackground() {}
}

/// A navigation bar; `UINavigationBar.appearance()` is the one every bar starts from.
open class UINavigationBar: UIView {
    open var standardAppearance = UINavigationBarAppearance()
    open var scrollEdgeAppearance: UINavigationBarAppearance?
    open var compactAppearance: UINavigationBarAppearance?
    nonisolated(unsafe) private static let proxy = UINavigationBar(frame: .zero)
    open class func appearance() -> UINavigationBar { proxy }
}
