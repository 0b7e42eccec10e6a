import Foundation

// What a view looks like: the modifiers and values app code writes, accepted and kept nowhere,
// as nothing is drawn. Each returns the view as it was.

/// A colour. Its conformance to `View` is an extension's, as SwiftUI declares it, so `Color`'s
/// own members (and an app's extensions of it) are not the main actor's.
public struct Color: Hashable, ShapeStyle, Sendable {
    let name: String
    init(name: String) { self.name = name }
    public init(_ name: String) { self.name = name }
    public init(red: Double, green: Double, blue: Double, opacity: Double = 1) {
        name = "rgb(\(red),\(green),\(blue),\(opacity))"
    }
    public init(white: Double, opacity: Double = 1) { name = "white(\(white))" }
    public func opacity(_ opacity: Double) -> Color { self }

    public static let black = Color(name: "black"), white = Color(name: "white"), gray = Color(name: "gray")
    public static let red = Color(name: "red"), green = Color(name: "green"), blue = Color(name: "blue")
    public static let orange = Color(name: "orange"), yellow = Color(name: "yellow"),
        pink = Color(name: "pink")
    public static let purple = Color(name: "purple"), teal = Color(name: "teal"),
        indigo = Color(name: "indigo")
    public static let primary = Color(name: "primary"), secondary = Color(name: "secondary")
    public static let accentColor = Color(name: "accent"), clear = Color(name: "clear")
}

extension Color: LeafView, PrimitiveView {
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public protocol ShapeStyle {}

extension ShapeStyle where Self == Color {
    public static var black: Color { .black }
    public static var white: Color { .white }
    public static var gray: Color { .gray }
    public static var red: Color { .red }
    public static var green: Color { .green }
    public static var blue: Color { .blue }
    public static var orange: Color { .orange }
    public static var primary: Color { .primary }
    public static var secondary: Color { .secondary }
    public static var clear: Color { .clear }
}

public protocol Shape: View, ShapeStyle {}

extension Shape {
    public func stroke<S: ShapeStyle>(_ content: S, lineWidth: CGFloat = 1) -> some View { self }
    public func fill<S: ShapeStyle>(_ content: S) -> some View { self }
}

public struct Rectangle: Shape, LeafView, PrimitiveView {
    public init() {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Circle: Shape, LeafView, PrimitiveView {
    public init() {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Capsule: Shape, LeafView, PrimitiveView {
    public init() {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct RoundedRectangle: Shape, LeafView, PrimitiveView {
    public init(cornerRadius: CGFloat) {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Font: Hashable, Sendable {
    let name: String
    public static let largeTitle = Font(name: "largeTitle"), title = Font(name: "title"), title2 = Font(name: "title2")
    public static let title3 = Font(name: "title3"), headline = Font(name: "headline")
    public static let subheadline = Font(name: "subheadline"), body = Font(name: "body")
    public static let callout = Font(name: "callout"), footnote = Font(name: "footnote")
    public static let caption = Font(name: "caption"), caption2 = Font(name: "caption2")
    public static func system(size: CGFloat, weight: Weight? = nil, design: Design? = nil) -> Font {
        Font(name: "system")
    }
    public static func system(_ style: TextStyle, design: Design? = nil, weight: Weight? = nil) -> Font {
        Font(name: "system")
    }
    public static func custom(_ name: String, size: CGFloat) -> Font { Font(name: name) }
    public func weight(_ weight: Weight) -> Font { self }
    public func bold() -> Font { self }

    public struct Weight: Hashable, Sendable {
        public static let ultraLight = Weight(), thin = Weight(), light = Weight(), regular = Weight()
        public static let medium = Weight(), semibold = Weight(), bold = Weight(), heavy = Weight(), black = Weight()
    }
    public enum Design: Hashable, Sendable { case `default`, serif, rounded, monospaced }
    public enum TextStyle: Hashable, Sendable {
        case largeTitle, title, title2, title3, headline, subheadline, body, callout, footnote, caption, caption2
    }
}

public enum HorizontalAlignment: Sendable { case leading, center, trailing }
public enum VerticalAlignment: Sendable { case top, center, bottom, firstTextBaseline, lastTextBaseline }

public struct Alignment: Equatable, Sendable {
    public static let center = Alignment(), leading = Alignment(), trailing = Alignment(), top = Alignment()
    public static let bottom = Alignment(), topLeading = Alignment(), topTrailing = Alignment()
    public static let bottomLeading = Alignment(), bottomTrailing = Alignment()
}

public enum Edge: Int8, Sendable {
    case top, leading, bottom, trailing

    public struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let top = Set(rawValue: 1), leading = Set(rawValue: 2), bottom = Set(rawValue: 4)
        public static let trailing = Set(rawValue: 8)
        public static let horizontal: Set = [.leading, .trailing], vertical: Set = [.top, .bottom]
        public static let all: Set = [.horizontal, .vertical]
    }
}

public enum Axis: Sendable {
    case horizontal, vertical

    public struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let horizontal = Set(rawValue: 1), vertical = Set(rawValue: 2)
    }
}

public struct UnitPoint: Hashable, Sendable {
    public static let center = UnitPoint(), top = UnitPoint(), bottom = UnitPoint(), leading = UnitPoint()
    public static let trailing = UnitPoint(), topLeading = UnitPoint(), bottomTrailing = UnitPoint()
}

public struct Angle: Hashable, Sendable {
    public static func degrees(_ value: Double) -> Angle { Angle() }
    public static func radians(_ value: Double) -> Angle { Angle() }
}

public struct Animation: Equatable, Sendable {
    public static let `default` = Animation(), linear = Animation(), easeIn = Animation(), easeOut = Animation()
    public static let easeInOut = Animation(), spring = Animation()
    public static func linear(duration: Double) -> Animation { Animation() }
    public static func easeIn(duration: Double) -> Animation { Animation() }
    public static func easeOut(duration: Double) -> Animation { Animation() }
    public static func easeInOut(duration: Double) -> Animation { Animation() }
    public static func spring(response: Double = 0.5, dampingFraction: Double = 0.8, blendDuration: Double = 0)
        -> Animation
    {
        Animation()
    }
}

/// Runs `body` at once: nothing animates.
@discardableResult public func withAnimation<Result>(_ animation: Animation? = .default, _ body: () throws -> Result)
    rethrows
    -> Result
{ try body() }

public struct Transaction: Sendable {
    public init() {}
    public init(animation: Animation?) {}
}

public struct AnyTransition: Sendable {
    public static let opacity = AnyTransition(), slide = AnyTransition(), identity = AnyTransition()
    public static func move(edge: Edge) -> AnyTransition { AnyTransition() }
    public static func scale(scale: CGFloat, anchor: UnitPoint = .center) -> AnyTransition { AnyTransition() }
    public static var scale: AnyTransition { AnyTransition() }
    public func combined(with other: AnyTransition) -> AnyTransition { self }
}

public enum ContentMode: Sendable { case fit, fill }
public enum TextAlignment: Sendable { case leading, center, trailing }

public enum ToolbarItemPlacement: Sendable {
    case automatic, principal, navigationBarLeading, navigationBarTrailing, bottomBar, primaryAction, cancellationAction
    case confirmationAction, topBarLeading, topBarTrailing
}

public struct ToolbarItem<Content: View>: View, ContentContainer {
    let content: Content
    public init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) {
        self.content = content()
    }
    public var body: Never { primitiveBody }
}

public struct ToolbarItemGroup<Content: View>: View, ContentContainer {
    let content: Content
    public init(placement: ToolbarItemPlacement = .automatic, @ViewBuilder content: () -> Content) {
        self.content = content()
    }
    public var body: Never { primitiveBody }
}

/// How a control looks: `.borderedProminent`, `.segmented`, `.roundedBorder`, `.insetGrouped`, …
public struct ControlStyle: Sendable {
    public static let automatic = ControlStyle(), bordered = ControlStyle(), borderedProminent = ControlStyle()
    public static let borderless = ControlStyle(), plain = ControlStyle(), segmented = ControlStyle()
    public static let menu = ControlStyle(), wheel = ControlStyle(), roundedBorder = ControlStyle()
    public static let insetGrouped = ControlStyle(), grouped = ControlStyle(), inset = ControlStyle()
    public static let sidebar = ControlStyle(), stack = ControlStyle(), columns = ControlStyle()
    public static let page = ControlStyle(), `switch` = ControlStyle(), button = ControlStyle()
}

public struct SwitchToggleStyle: Sendable {
    public init(tint: Color? = nil) {}
}

// swift-format-ignore: AlwaysUseLowerCamelCase
// UIKit's names, `.URL` among them.
public enum UIKeyboardType: Sendable {
    case `default`, asciiCapable, numbersAndPunctuation, URL, numberPad, phonePad, namePhonePad, emailAddress
    case decimalPad
}

public struct TextInputAutocapitalization: Sendable {
    public static let never = TextInputAutocapitalization(), words = TextInputAutocapitalization()
    public static let sentences = TextInputAutocapitalization(), characters = TextInputAutocapitalization()
}

public struct TextSelectability: Sendable {
    public static let enabled = TextSelectability(), disabled = TextSelectability()
}

public struct NavigationBarItem: Sendable {
    public enum TitleDisplayMode: Sendable { case automatic, inline, large }
}

extension View {
    public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View { self }
    public func padding(_ length: CGFloat) -> some View { self }
    public func frame(width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center) -> some View {
        self
    }
    public func frame(
        minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: CGFloat? = nil,
        idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center
    ) -> some View { self }
    public func font(_ font: Font?) -> some View { self }
    public func fontWeight(_ weight: Font.Weight?) -> some View { self }
    public func bold(_ isActive: Bool = true) -> some View { self }
    public func italic(_ isActive: Bool = true) -> some View { self }
    public func foregroundColor(_ color: Color?) -> some View { self }
    public func foregroundStyle<S: ShapeStyle>(_ style: S) -> some View { self }
    public func background<S: ShapeStyle>(_ style: S) -> some View { self }
    public func background<V: View>(_ view: V, alignment: Alignment = .center) -> some View { self }
    public func background<V: View>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View { self }
    public func overlay<V: View>(_ view: V, alignment: Alignment = .center) -> some View {
        modified { graph, path, environment in graph.walk(view, at: path.child("overlay"), in: environment) }
    }
    public func overlay<V: View>(alignment: Alignment = .center, @ViewBuilder content: () -> V) -> some View {
        overlay(content(), alignment: alignment)
    }
    public func cornerRadius(_ radius: CGFloat, antialiased: Bool = true) -> some View { self }
    public func clipShape<S: Shape>(_ shape: S) -> some View { self }
    public func border<S: ShapeStyle>(_ content: S, width: CGFloat = 1) -> some View { self }
    public func shadow(color: Color = .black, radius: CGFloat, x: CGFloat = 0, y: CGFloat = 0) -> some View { self }
    public func opacity(_ opacity: Double) -> some View { self }
    public func scaleEffect(_ scale: CGFloat, anchor: UnitPoint = .center) -> some View { self }
    public func rotationEffect(_ angle: Angle, anchor: UnitPoint = .center) -> some View { self }
    public func aspectRatio(_ ratio: CGFloat? = nil, contentMode: ContentMode) -> some View { self }
    public func imageScale(_ scale: Image.Scale) -> some View { self }
    public func multilineTextAlignment(_ alignment: TextAlignment) -> some View { self }
    public func lineLimit(_ number: Int?) -> some View { self }
    public func tint(_ tint: Color?) -> some View { self }
    public func accentColor(_ color: Color?) -> some View { self }
    public func ignoresSafeArea(_ regions: Edge.Set = .all) -> some View { self }
    public func edgesIgnoringSafeArea(_ edges: Edge.Set) -> some View { self }
    public func zIndex(_ value: Double) -> some View { self }
    public func preferredColorScheme(_ colorScheme: ColorScheme?) -> some View { self }
    public func transition(_ transition: AnyTransition) -> some View { self }
    public func animation<V: Equatable>(_ animation: Animation?, value: V) -> some View { self }
    public func disabled(_ disabled: Bool) -> some View { self }
    public func hidden() -> some View { self }
    public func tag<V: Hashable>(_ tag: V) -> some View { TaggedView(content: self, tag: AnyHashable(tag)) }
    public func id<ID: Hashable>(_ id: ID) -> some View { self }
    public func onTapGesture(count: Int = 1, perform action: @escaping () -> Void) -> some View { self }
    public func contentShape<S: Shape>(_ shape: S) -> some View { self }
    public func accessibilityLabel(_ label: String) -> some View { self }
    public func accessibilityIdentifier(_ identifier: String) -> some View { self }

    // Navigation
    public func navigationTitle(_ title: String) -> some View { self }
    public func navigationTitle(_ title: Text) -> some View { self }
    public func navigationBarTitle(_ title: String) -> some View { self }
    public func navigationBarTitle(_ title: Text) -> some View { self }
    public func navigationBarTitle(_ title: String, displayMode: NavigationBarItem.TitleDisplayMode) -> some View {
        self
    }
    public func navigationBarTitle(_ title: Text, displayMode: NavigationBarItem.TitleDisplayMode) -> some View { self }
    public func navigationBarTitleDisplayMode(_ mode: NavigationBarItem.TitleDisplayMode) -> some View { self }
    public func navigationBarItems<L: View, T: View>(leading: L, trailing: T) -> some View { self }
    public func navigationBarItems<L: View>(leading: L) -> some View { self }
    public func navigationBarItems<T: View>(trailing: T) -> some View { self }
    public func navigationBarBackButtonHidden(_ hidesBackButton: Bool = true) -> some View { self }
    public func navigationViewStyle(_ style: ControlStyle) -> some View { self }
    public func navigationDestination<D: Hashable, C: View>(
        for data: D.Type, @ViewBuilder destination: @escaping (D) -> C
    )
        -> some View
    { self }
    public func toolbar<Content: View>(@ViewBuilder content: () -> Content) -> some View {
        let toolbar = content()
        return modified { graph, path, environment in graph.walk(toolbar, at: path.child("toolbar"), in: environment) }
    }
    public func tabItem<V: View>(@ViewBuilder _ label: () -> V) -> some View { self }

    // Controls
    public func buttonStyle(_ style: ControlStyle) -> some View { self }
    public func pickerStyle(_ style: ControlStyle) -> some View { self }
    public func textFieldStyle(_ style: ControlStyle) -> some View { self }
    public func toggleStyle(_ style: ControlStyle) -> some View { self }
    public func toggleStyle(_ style: SwitchToggleStyle) -> some View { self }
    public func listStyle(_ style: ControlStyle) -> some View { self }
    public func tabViewStyle(_ style: ControlStyle) -> some View { self }
    public func keyboardType(_ type: UIKeyboardType) -> some View { self }
    public func disableAutocorrection(_ disable: Bool?) -> some View { self }
    public func autocorrectionDisabled(_ disable: Bool = true) -> some View { self }
    public func textInputAutocapitalization(_ autocapitalization: TextInputAutocapitalization?) -> some View { self }
    public func autocapitalization(_ style: UITextAutocapitalizationType) -> some View { self }
    public func textSelection(_ selectability: TextSelectability) -> some View { self }
    public func focused(_ condition: FocusState<Bool>.Binding) -> some View { self }
    public func focused<V: Hashable>(_ binding: FocusState<V?>.Binding, equals value: V) -> some View { self }
    public func submitLabel(_ label: SubmitLabel) -> some View { self }
    public func onSubmit(_ action: @escaping () -> Void) -> some View { self }
    public func refreshable(action: @escaping @Sendable () async -> Void) -> some View { self }

    // Alerts: their content is shown when presented, which nothing here presents.
    public func alert(isPresented: Binding<Bool>, content: () -> Alert) -> some View { self }
    public func alert<Item: Identifiable>(item: Binding<Item?>, content: (Item) -> Alert) -> some View { self }
    public func alert<A: View>(_ title: String, isPresented: Binding<Bool>, @ViewBuilder actions: () -> A) -> some View
    {
        self
    }
    public func alert<A: View, M: View>(
        _ title: String, isPresented: Binding<Bool>, @ViewBuilder actions: () -> A, @ViewBuilder message: () -> M
    ) -> some View { self }
    public func confirmationDialog<A: View>(
        _ title: String, isPresented: Binding<Bool>, @ViewBuilder actions: () -> A
    ) -> some View { self }
}

extension Image {
    public enum Scale: Sendable { case small, medium, large }
}

public enum UITextAutocapitalizationType: Sendable { case none, words, sentences, allCharacters }

public struct SubmitLabel: Sendable {
    public static let done = SubmitLabel(), go = SubmitLabel(), send = SubmitLabel(), next = SubmitLabel()
    public static let search = SubmitLabel(), `return` = SubmitLabel()
}

/// A preview, for Xcode's canvas; never shown here.
@MainActor @preconcurrency public protocol PreviewProvider {
    associatedtype Previews: View
    @ViewBuilder static var previews: Previews { get }
}

extension View {
    public func previewLayout(_ value: PreviewLayout) -> some View { self }
    public func previewDisplayName(_ value: String?) -> some View { self }
}

public enum PreviewLayout: Sendable {
    case device, sizeThatFits
    case fixed(width: CGFloat, height: CGFloat)
}
