import Foundation

// The views a shared-device app's screens are made of. They draw nothing: each keeps what it
// was given, and a container's content is evaluated as SwiftUI evaluates it.

/// A view that shows something and holds nothing to evaluate.
public protocol LeafView: View where Body == Never {}

extension LeafView {
    public var body: Never { fatalError("\(Self.self) has no body") }
}

/// A view that holds views and draws nothing of its own: the graph evaluates its content.
protocol ContentContainer: PrimitiveView {
    associatedtype Content: View
    var content: Content { get }
}

@MainActor extension ContentContainer {
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(content, at: path.child(0), in: environment)
    }
}

/// Text. As in SwiftUI, its conformance to `View` is an extension's, so its own members are not
/// the main actor's.
public struct Text: Equatable, Sendable {
    public let content: String
    public init(_ content: String) { self.content = content }
    public init<S: StringProtocol>(_ content: S) { self.content = String(content) }
    public init(verbatim content: String) { self.content = content }
    public init(_ date: Date, style: DateStyle) { content = "\(date)" }

    public enum DateStyle: Sendable { case time, date, relative, offset, timer }

    public func bold() -> Text { self }
    public func italic() -> Text { self }
    public func font(_ font: Font?) -> Text { self }
    public func fontWeight(_ weight: Font.Weight?) -> Text { self }
    public func foregroundColor(_ color: Color?) -> Text { self }
    public static func + (lhs: Text, rhs: Text) -> Text { Text(lhs.content + rhs.content) }
}

extension Text: LeafView, PrimitiveView {
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Image: Sendable {
    public init(_ name: String) {}
    public init(_ name: String, bundle: Bundle?) {}
    public init(systemName: String) {}
    public init(uiImage: UIImage) {}
    public func resizable() -> Image { self }
    public func renderingMode(_ mode: TemplateRenderingMode?) -> Image { self }
    public enum TemplateRenderingMode: Sendable { case template, original }
}

extension Image: LeafView, PrimitiveView {
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Spacer: LeafView, PrimitiveView {
    public init(minLength: CGFloat? = nil) {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Divider: LeafView, PrimitiveView {
    public init() {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct ProgressView: LeafView, PrimitiveView {
    public init() {}
    public init(_ title: String) {}
    public init(value: Double?, total: Double = 1.0) {}
    public init(_ title: String, value: Double?, total: Double = 1.0) {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct TextField: LeafView, PrimitiveView {
    public init(_ title: String, text: Binding<String>) {}
    public init(_ title: String, text: Binding<String>, axis: Axis) {}
    public init(_ title: String, text: Binding<String>, prompt: Text?) {}
    public init(
        _ title: String, text: Binding<String>, onEditingChanged: @escaping (Bool) -> Void,
        onCommit: @escaping () -> Void = {}
    ) {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct SecureField: LeafView, PrimitiveView {
    public init(_ title: String, text: Binding<String>) {}
    public init(_ title: String, text: Binding<String>, prompt: Text?) {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct TextEditor: LeafView, PrimitiveView {
    public init(text: Binding<String>) {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Link: LeafView, PrimitiveView {
    public init(_ title: String, destination: URL) {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Label: LeafView, PrimitiveView {
    public init(_ title: String, systemImage: String) {}
    public init(_ title: String, image: String) {}
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

public struct Toggle<Label: View>: View, PrimitiveView {
    let label: Label
    public init(isOn: Binding<Bool>, @ViewBuilder label: () -> Label) { self.label = label() }
    public var body: Never { primitiveBody }
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(label, at: path.child(0), in: environment)
    }
}

extension Toggle where Label == Text {
    public init(_ title: String, isOn: Binding<Bool>) { label = Text(title) }
}

/// A button: its label is evaluated; its action runs when it is tapped, which nobody does here.
public struct Button<Label: View>: View, PrimitiveView {
    let label: Label
    let action: () -> Void
    public init(action: @escaping () -> Void, @ViewBuilder label: () -> Label) {
        self.action = action
        self.label = label()
    }
    public init(role: ButtonRole?, action: @escaping () -> Void, @ViewBuilder label: () -> Label) {
        self.init(action: action, label: label)
    }
    public var body: Never { primitiveBody }
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(label, at: path.child(0), in: environment)
    }
}

extension Button where Label == Text {
    public init(_ title: String, action: @escaping () -> Void) { self.init(action: action) { Text(title) } }
    public init(_ title: String, role: ButtonRole?, action: @escaping () -> Void) {
        self.init(action: action) { Text(title) }
    }
}

public struct ButtonRole: Equatable, Sendable {
    public static let destructive = ButtonRole()
    public static let cancel = ButtonRole()
}

public struct Picker<Label: View, SelectionValue: Hashable, Content: View>: View, ContentContainer {
    let content: Content
    public init(
        selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content, @ViewBuilder label: () -> Label
    ) {
        self.content = content()
    }
    public var body: Never { primitiveBody }
}

extension Picker where Label == Text {
    public init(_ title: String, selection: Binding<SelectionValue>, @ViewBuilder content: () -> Content) {
        self.content = content()
    }
}

public struct NavigationLink<Label: View, Destination: View>: View, PrimitiveView {
    let label: Label
    public init(destination: Destination, @ViewBuilder label: () -> Label) { self.label = label() }
    public init(@ViewBuilder destination: () -> Destination, @ViewBuilder label: () -> Label) { self.label = label() }
    public var body: Never { primitiveBody }
    /// The label only: the destination is evaluated when navigated to, which nobody does here.
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(label, at: path.child(0), in: environment)
    }
}

extension NavigationLink where Label == Text {
    public init(_ title: String, destination: Destination) { label = Text(title) }
}

extension NavigationLink where Destination == Never {
    public init<P: Hashable>(value: P?, @ViewBuilder label: () -> Label) { self.label = label() }
}

/// The path of a `NavigationStack`, pushed and popped by the app.
public struct NavigationPath: Equatable {
    private var elements: [AnyHashable] = []
    public init() {}
    public var count: Int { elements.count }
    public var isEmpty: Bool { elements.isEmpty }
    public mutating func append<V: Hashable>(_ value: V) { elements.append(value) }
    public mutating func removeLast(_ k: Int = 1) { elements.removeLast(k) }
}

public struct GridItem: Sendable {
    public enum Size: Sendable {
        case fixed(CGFloat)
        case flexible(minimum: CGFloat = 10, maximum: CGFloat = .infinity)
        case adaptive(minimum: CGFloat, maximum: CGFloat = .infinity)
    }
    public init(_ size: Size = .flexible(), spacing: CGFloat? = nil, alignment: Alignment? = nil) {}
}

/// Scrolls to a view; nothing scrolls here.
public struct ScrollViewProxy {
    public func scrollTo<ID: Hashable>(_ id: ID, anchor: UnitPoint? = nil) {}
}

public struct ScrollViewReader<Content: View>: View, PrimitiveView {
    let content: (ScrollViewProxy) -> Content
    public init(@ViewBuilder content: @escaping (ScrollViewProxy) -> Content) { self.content = content }
    public var body: Never { primitiveBody }
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(content(ScrollViewProxy()), at: path.child(0), in: environment)
    }
}

/// The legacy alert a view's `alert(isPresented:content:)` returns.
public struct Alert {
    public struct Button {
        public static func `default`(_ label: Text, action: (() -> Void)? = {}) -> Button { Button() }
        public static func cancel(_ label: Text, action: (() -> Void)? = {}) -> Button { Button() }
        public static func cancel(_ action: (() -> Void)? = {}) -> Button { Button() }
        public static func destructive(_ label: Text, action: (() -> Void)? = {}) -> Button { Button() }
    }
    public init(title: Text, message: Text? = nil, dismissButton: Button? = nil) {}
    public init(title: Text, message: Text? = nil, primaryButton: Button, secondaryButton: Button) {}
}

// MARK: - Containers

public struct VStack<Content: View>: View, ContentContainer {
    let content: Content
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content)
    {
        self.content = content()
    }
    public var body: Never { primitiveBody }
}

public struct HStack<Content: View>: View, ContentContainer {
    let content: Content
    public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
        self.content = content()
    }
    public var body: Never { primitiveBody }
}

public struct ZStack<Content: View>: View, ContentContainer {
    let content: Content
    public init(alignment: Alignment = .center, @ViewBuilder content: () -> Content) { self.content = content() }
    public var body: Never { primitiveBody }
}

public struct LazyVStack<Content: View>: View, ContentContainer {
    let content: Content
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content)
    {
        self.content = content()
    }
    public var body: Never { primitiveBody }
}

public struct LazyVGrid<Content: View>: View, ContentContainer {
    let content: Content
    public init(
        columns: [GridItem], alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil,
        @ViewBuilder content: () -> Content
    ) { self.content = content() }
    public var body: Never { primitiveBody }
}

public struct ScrollView<Content: View>: View, ContentContainer {
    let content: Content
    public init(_ axes: Axis.Set = .vertical, showsIndicators: Bool = true, @ViewBuilder content: () -> Content) {
        self.content = content()
    }
    public var body: Never { primitiveBody }
}

public struct Form<Content: View>: View, ContentContainer {
    let content: Content
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
    public var body: Never { primitiveBody }
}

public struct List<Content: View>: View, ContentContainer {
    let content: Content
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
    public var body: Never { primitiveBody }
}

extension List {
    public init<Data: RandomAccessCollection, ID: Hashable, RowContent: View>(
        _ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
    ) where Content == ForEach<Data, ID, RowContent> { content = ForEach(data, id: id, content: rowContent) }

    public init<Data: RandomAccessCollection, RowContent: View>(
        _ data: Data, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
    ) where Content == ForEach<Data, Data.Element.ID, RowContent>, Data.Element: Identifiable {
        content = ForEach(data, content: rowContent)
    }
}

public struct Section<Content: View>: View, ContentContainer {
    let content: Content
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
    public init<Header: View>(header: Header, @ViewBuilder content: () -> Content) { self.content = content() }
    public init<Header: View, Footer: View>(header: Header, footer: Footer, @ViewBuilder content: () -> Content) {
        self.content = content()
    }
    public init(_ title: String, @ViewBuilder content: () -> Content) { self.content = content() }
    public var body: Never { primitiveBody }
}

public struct NavigationView<Content: View>: View, ContentContainer {
    let content: Content
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
    public var body: Never { primitiveBody }
}

public struct NavigationStack<Content: View>: View, ContentContainer {
    let content: Content
    public init(@ViewBuilder root: () -> Content) { content = root() }
    public init(path: Binding<NavigationPath>, @ViewBuilder root: () -> Content) { content = root() }
    public init<Data: Hashable>(path: Binding<[Data]>, @ViewBuilder root: () -> Content) { content = root() }
    public var body: Never { primitiveBody }
}

/// Tabs: every tab's content is evaluated (on iOS only the tab shown is, until another is chosen).
/// Tabs, of which only the selected one is evaluated, as on iOS (a tab no one opened never
/// appears): the one whose `tag` is the selection, else the first. Tabs a `ForEach` makes are
/// all evaluated.
public struct TabView<Content: View>: View, PrimitiveView {
    let content: Content
    let selection: (() -> AnyHashable)?

    public init(@ViewBuilder content: () -> Content) {
        self.content = content()
        selection = nil
    }

    public init<Selection: Hashable>(selection: Binding<Selection>?, @ViewBuilder content: () -> Content) {
        self.content = content()
        self.selection = selection.map { binding in { AnyHashable(binding.wrappedValue) } }
    }

    public var body: Never { primitiveBody }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        // The places are a TupleView's, so that a tab keeps its state when another is chosen.
        let tabs = path.child(0)
        guard let children = (content as? any ViewChildren)?.children else {
            return graph.walk(content, at: tabs, in: environment)
        }
        let selected = selection?()
        let chosen = selected.flatMap { tag in children.firstIndex { ($0 as? Tagged)?.tag == tag } } ?? 0
        graph.walk(children[chosen], at: tabs.child(chosen), in: environment)
    }
}

public struct Menu<Label: View, Content: View>: View, PrimitiveView {
    let label: Label
    public init(@ViewBuilder content: () -> Content, @ViewBuilder label: () -> Label) { self.label = label() }
    public var body: Never { primitiveBody }
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(label, at: path.child(0), in: environment)
    }
}

extension Menu where Label == Text {
    public init(_ title: String, @ViewBuilder content: () -> Content) { label = Text(title) }
}
