import DeviceHost
import Foundation
import UIKit

/// An app written with SwiftUI's lifecycle: `@main struct NotesApp: App`. The host runs it in
/// a device as iOS runs it, and drives its scene phase from the scenario's steps.
@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Body { get }
    @MainActor @preconcurrency init()
}

extension App {
    /// `@main`: the host prepares the device before the app exists (so that its stored
    /// properties find their folders in the container), then runs it. An app delegate given with
    /// `@UIApplicationDelegateAdaptor` is the application's delegate; when the app (or that
    /// delegate) is also a `DeviceLabApp`, the scenario's records reach it.
    public static func main() {
        let host = DeviceHost.prepare()
        let app = Self()
        let delegate = UIApplicationDelegateAdaptorRegistry.delegate ?? PlainAppDelegate()
        UIApplication.shared.delegate = delegate
        let lifecycle = SceneLifecycle(app: app, delegate: delegate)
        host.run(lifecycle: lifecycle, app: (app as? DeviceLabApp) ?? (delegate as? DeviceLabApp))
    }
}

/// The application's delegate of an app that gives none.
final class PlainAppDelegate: UIResponder, UIApplicationDelegate {}

/// A part of an app's interface: here, its one window's views.
@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Body { get }
}

/// A scene with no body of its own.
@MainActor protocol PrimitiveScene {
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues)
}

extension ViewGraph {
    func walk(scene: any Scene, at path: ViewPath, in environment: EnvironmentValues) {
        if let primitive = scene as? PrimitiveScene {
            primitive.visit(self, at: path, in: environment)
            return
        }
        install(Mirror(reflecting: scene), at: path, in: environment)
        walk(scene: body(of: scene), at: path.child(String(describing: type(of: scene))), in: environment)
    }

    private func body<S: Scene>(of scene: S) -> any Scene { scene.body }
}

@resultBuilder public enum SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: Scene>(_ content: repeat each Content) -> TupleScene<
        repeat each Content
    > {
        TupleScene(repeat each content)
    }
}

public struct TupleScene<each Content: Scene>: Scene, PrimitiveScene {
    let content: (repeat each Content)
    init(_ content: repeat each Content) { self.content = (repeat each content) }
    public var body: Never { fatalError("TupleScene is a primitive scene") }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        var index = 0
        for scene in repeat each content {
            graph.walk(scene: scene, at: path.child(index), in: environment)
            index += 1
        }
    }
}

extension Never: Scene {}

/// The app's window: its views are evaluated as the scene's content.
public struct WindowGroup<Content: View>: Scene, PrimitiveScene {
    let content: Content
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
    public init(_ title: String, @ViewBuilder content: () -> Content) { self.content = content() }
    public init(id: String, @ViewBuilder content: () -> Content) { self.content = content() }
    public var body: Never { fatalError("WindowGroup is a primitive scene") }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(content, at: path.child("WindowGroup"), in: environment)
    }
}

/// A scene with an effect or an environment change, as a view modifier on a scene makes.
struct ModifiedScene<Content: Scene>: Scene, PrimitiveScene {
    let content: Content
    let apply: @MainActor (ViewGraph, ViewPath, inout EnvironmentValues) -> Void
    var body: Never { fatalError("a modified scene is a primitive scene") }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        var inner = environment
        apply(graph, path, &inner)
        graph.walk(scene: content, at: path.child(0), in: inner)
    }
}

extension Scene {
    public func onChange<V: Equatable>(of value: V, perform action: @escaping (V) -> Void) -> some Scene {
        ModifiedScene(content: self) { graph, path, _ in
            graph.onChange(of: value, at: path, initial: false) { action($1) }
        }
    }

    public func onChange<V: Equatable>(of value: V, initial: Bool = false, _ action: @escaping () -> Void)
        -> some Scene
    {
        ModifiedScene(content: self) { graph, path, _ in
            graph.onChange(of: value, at: path, initial: initial) { _, _ in action() }
        }
    }

    public func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some Scene {
        ModifiedScene(content: self) { graph, path, _ in graph.onChange(of: value, at: path, initial: initial, action) }
    }
}

/// The delegate an app gives with `@UIApplicationDelegateAdaptor`, made as the app is; it is
/// the application's delegate, driven as UIKit drives one.
@propertyWrapper
public struct UIApplicationDelegateAdaptor<DelegateType: NSObject & UIApplicationDelegate>:
    DynamicProperty
{
    public let wrappedValue: DelegateType

    /// Makes the delegate with `init()`. Linux's Swift can make an instance of a class it is
    /// given only through a `required` initializer, which `UIResponder`'s is and `NSObject`'s is
    /// not: for a delegate that derives from `NSObject`, the AppDelegateAdaptors build plugin
    /// writes an initializer for its type (`init(makingWith:)`), which the compiler picks over
    /// this one. Without the plugin, such a delegate stops here, naming the fix.
    @MainActor public init(_ delegateType: DelegateType.Type = DelegateType.self) {
        guard let delegate = (delegateType as? UIResponder.Type)?.init() as? DelegateType else {
            fatalError(
                "@UIApplicationDelegateAdaptor: \(delegateType) derives from NSObject, which Linux's Swift can make "
                    + "only with the AppDelegateAdaptors plugin on the app's target: plugins: [.plugin(name: "
                    + "\"AppDelegateAdaptors\", package: LAB)] (LAB: the SharedDeviceLab package's identity, its "
                    + "folder's name for a path dependency), as sdlab init --swiftui writes it (Docs/your-app.md)")
        }
        self.init(makingWith: { delegate })
    }

    /// Makes the delegate with `make`: what the AppDelegateAdaptors plugin writes for each
    /// delegate type, where the type is known and `AppDelegate()` can be written.
    @MainActor public init(makingWith make: @MainActor () -> DelegateType) {
        let delegate = make()
        wrappedValue = delegate
        UIApplicationDelegateAdaptorRegistry.delegate = delegate
    }
}

extension UIApplicationDelegateAdaptor where DelegateType: ObservableObject {
    public var projectedValue: ObservedObject<DelegateType>.Wrapper { .init(object: wrappedValue) }
}

@MainActor enum UIApplicationDelegateAdaptorRegistry {
    static var delegate: UIApplicationDelegate?
}

/// Drives a SwiftUI app as iOS does: the application delegate's calls (UIKit's own lifecycle),
/// then the scene's phase, after which the views are evaluated again and what they asked
/// (`onChange(of: scenePhase)`) runs, before the host goes on. The first evaluation is at
/// launch, inactive; the app becomes active next, as on iOS.
final class SceneLifecycle<AppType: App>: AppLifecycleReceiver {
    private let delegate: DelegateLifecycle
    private let graph: ViewGraph

    @MainActor init(app: AppType, delegate: UIApplicationDelegate) {
        self.delegate = DelegateLifecycle(delegate)
        let delegateObject = delegate as? any ObservableObject
        graph = ViewGraph { graph in
            var environment = graph.environment
            if let delegateObject { environment.objects[ObjectIdentifier(type(of: delegateObject))] = delegateObject }
            graph.install(Mirror(reflecting: app), at: .root, in: environment)
            graph.walk(scene: app.body, at: .root, in: environment)
        }
        ViewGraph.current = graph
    }

    func didFinishLaunching() { step(.inactive, delegate.didFinishLaunching) }
    func willEnterForeground() { step(.inactive, delegate.willEnterForeground) }
    func didBecomeActive() { step(.active, delegate.didBecomeActive) }
    func willResignActive() { step(.inactive, delegate.willResignActive) }
    func didEnterBackground() { step(.background, delegate.didEnterBackground) }

    /// UIKit's call first, then the scene's phase, the views evaluated again at it.
    private func step(_ phase: ScenePhase, _ delegateCall: () -> Void) {
        delegateCall()
        MainActor.assumeIsolated { graph.update { $0.scenePhase = phase } }
    }

    func willTerminate() { delegate.willTerminate() }
}
