import Foundation

/// A key of the environment, with the value a view reads where nothing set it.
public protocol EnvironmentKey {
    associatedtype Value
    static var defaultValue: Value { get }
}

/// What flows down the views: the scene phase, the objects set with `environmentObject(_:)` and
/// `environment(_:)`, and the keys an app declares.
public struct EnvironmentValues: @unchecked Sendable {
    private var values: [ObjectIdentifier: Any] = [:]
    /// The `ObservableObject`s and `@Observable` objects set for the views below, by type.
    var objects: [ObjectIdentifier: AnyObject] = [:]

    public init() {}

    public subscript<Key: EnvironmentKey>(key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
        set { values[ObjectIdentifier(key)] = newValue }
    }

    /// Where the app's scene is: the host's lifecycle drives it, as iOS does.
    public var scenePhase: ScenePhase {
        get { self[ScenePhaseKey.self] }
        set { self[ScenePhaseKey.self] = newValue }
    }

    public var colorScheme: ColorScheme {
        get { self[ColorSchemeKey.self] }
        set { self[ColorSchemeKey.self] = newValue }
    }

    /// Opens a URL as `UIApplication.open` does: nothing is there to open it.
    public var openURL: OpenURLAction { OpenURLAction() }

    /// Dismisses the presentation the view is in: none is shown here.
    public var dismiss: DismissAction { DismissAction() }

    public var locale: Locale { .current }
    public var isEnabled: Bool { true }
}

private enum ScenePhaseKey: EnvironmentKey {
    static var defaultValue: ScenePhase { .active }
}

private enum ColorSchemeKey: EnvironmentKey {
    static var defaultValue: ColorScheme { .light }
}

/// Whether the scene is in front and taking events, in front without them, or in the background.
public enum ScenePhase: Hashable, Comparable, Sendable {
    case background, inactive, active
}

public enum ColorScheme: Hashable, CaseIterable, Sendable {
    case light, dark
}

public struct OpenURLAction: Sendable {
    public func callAsFunction(_ url: URL) {}
    public func callAsFunction(_ url: URL, completion: @escaping (Bool) -> Void) { completion(false) }
}

public struct DismissAction: Sendable {
    public func callAsFunction() {}
}
