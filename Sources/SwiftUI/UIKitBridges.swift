import UIKit

// UIKit inside SwiftUI and SwiftUI inside UIKit, as app code bridges them: a representable's
// controller or view is made when it first appears and updated at each evaluation, as on iOS;
// nothing is shown.

extension Color {
    public init(_ color: UIColor) { self.init(name: color.description) }
    public init(uiColor: UIColor) { self.init(uiColor) }
}

/// A UIKit view controller shown by SwiftUI (a sign-in page's host, a share sheet).
@MainActor @preconcurrency public protocol UIViewControllerRepresentable: View where Body == Never {
    associatedtype UIViewControllerType: UIViewController
    associatedtype Coordinator = Void
    typealias Context = UIViewControllerRepresentableContext<Self>
    func makeUIViewController(context: Context) -> UIViewControllerType
    func updateUIViewController(_ uiViewController: UIViewControllerType, context: Context)
    func makeCoordinator() -> Coordinator
    static func dismantleUIViewController(_ uiViewController: UIViewControllerType, coordinator: Coordinator)
}

extension UIViewControllerRepresentable {
    public var body: Never { fatalError("\(Self.self) is made by makeUIViewController") }
    public static func dismantleUIViewController(_ uiViewController: UIViewControllerType, coordinator: Coordinator) {}
}

extension UIViewControllerRepresentable where Coordinator == Void {
    public func makeCoordinator() {}
}

public struct UIViewControllerRepresentableContext<Representable: UIViewControllerRepresentable> {
    public let coordinator: Representable.Coordinator
    public var environment: EnvironmentValues
}

/// A UIKit view shown by SwiftUI.
@MainActor @preconcurrency public protocol UIViewRepresentable: View where Body == Never {
    associatedtype UIViewType: UIView
    associatedtype Coordinator = Void
    typealias Context = UIViewRepresentableContext<Self>
    func makeUIView(context: Context) -> UIViewType
    func updateUIView(_ uiView: UIViewType, context: Context)
    func makeCoordinator() -> Coordinator
    static func dismantleUIView(_ uiView: UIViewType, coordinator: Coordinator)
}

extension UIViewRepresentable {
    public var body: Never { fatalError("\(Self.self) is made by makeUIView") }
    public static func dismantleUIView(_ uiView: UIViewType, coordinator: Coordinator) {}
}

extension UIViewRepresentable where Coordinator == Void {
    public func makeCoordinator() {}
}

public struct UIViewRepresentableContext<Representable: UIViewRepresentable> {
    public let coordinator: Representable.Coordinator
    public var environment: EnvironmentValues
}

/// What a representable made at its place: its coordinator and its controller or view.
final class Represented<Coordinator, Made> {
    var made: (coordinator: Coordinator, made: Made)?
}

extension ViewGraph {
    /// Makes a representable's coordinator and controller (or view) the first time it is
    /// evaluated at `path`, then updates it; false for any other view.
    func represent(_ view: any View, at path: ViewPath, in environment: EnvironmentValues) -> Bool {
        if let representable = view as? any UIViewControllerRepresentable {
            representController(representable, at: path, in: environment)
            return true
        }
        if let representable = view as? any UIViewRepresentable {
            representView(representable, at: path, in: environment)
            return true
        }
        return false
    }

    private func representController<R: UIViewControllerRepresentable>(
        _ representable: R, at path: ViewPath, in environment: EnvironmentValues
    ) {
        represent(
            at: path,
            make: {
                let coordinator = representable.makeCoordinator()
                let context = R.Context(coordinator: coordinator, environment: environment)
                return (coordinator, representable.makeUIViewController(context: context))
            },
            update: { coordinator, controller in
                representable.updateUIViewController(
                    controller, context: R.Context(coordinator: coordinator, environment: environment))
            })
    }

    private func representView<R: UIViewRepresentable>(
        _ representable: R, at path: ViewPath, in environment: EnvironmentValues
    ) {
        represent(
            at: path,
            make: {
                let coordinator = representable.makeCoordinator()
                let context = R.Context(coordinator: coordinator, environment: environment)
                return (coordinator, representable.makeUIView(context: context))
            },
            update: { coordinator, view in
                representable.updateUIView(view, context: R.Context(coordinator: coordinator, environment: environment))
            })
    }

    /// What a representable made at `path`: made the first time, updated every time.
    private func represent<Coordinator, Made>(
        at path: ViewPath, make: () -> (Coordinator, Made), update: (Coordinator, Made) -> Void
    ) {
        let place = storage(at: "\(path).represented") { Represented<Coordinator, Made>() }
        let (coordinator, made) = place.made ?? make()
        place.made = (coordinator, made)
        update(coordinator, made)
    }
}

/// SwiftUI views inside a UIKit app: the controller keeps its root view, which is not
/// evaluated, as it is never shown.
open class UIHostingController<Content: View>: UIViewController {
    public var rootView: Content

    public init(rootView: Content) {
        self.rootView = rootView
        super.init(nibName: nil, bundle: nil)
    }

    public required init?(coder: NSCoder) { fatalError("UIHostingController(coder:) has no root view here") }
}

/// An image loaded from a URL: nothing is loaded here, so it shows its placeholder (the
/// phase-taking form gets `.empty`).
public struct AsyncImage<Content: View>: View, ContentContainer {
    public let content: Content
    public var body: Never { primitiveBody }

    public init(url: URL?, scale: CGFloat = 1) where Content == ProgressView {
        content = ProgressView()
    }

    public init<I: View>(
        url: URL?, scale: CGFloat = 1, @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: () -> Content
    ) {
        self.content = placeholder()
    }

    public init(
        url: URL?, scale: CGFloat = 1, transaction: Transaction = Transaction(),
        @ViewBuilder content: (AsyncImagePhase) -> Content
    ) {
        self.content = content(.empty)
    }
}

public enum AsyncImagePhase: Sendable {
    case empty
    case success(Image)
    case failure(Error)

    public var image: Image? {
        if case .success(let image) = self { return image }
        return nil
    }

    public var error: Error? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
