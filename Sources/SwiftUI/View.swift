/// A piece of an app's interface. Its `body` is evaluated whenever the state it reads changes,
/// as on iOS; nothing is drawn.
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Body { get }
}

extension Never: View {
    public var body: Never { fatalError("Never has no body") }
}

/// A view that has no body of its own: the graph visits what it holds.
@MainActor protocol PrimitiveView {
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues)
}

extension PrimitiveView {
    /// Primitive views have no body; asking for one is a mistake of ours.
    var primitiveBody: Never { fatalError("\(Self.self) is a primitive view") }
}

/// Builds a view from the statements of a closure, as SwiftUI's does.
@resultBuilder public enum ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<repeat each Content>
    {
        TupleView(repeat each content)
    }
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildOptional<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent)
        -> ConditionalContent<TrueContent, FalseContent>
    { ConditionalContent(.first(first)) }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent)
        -> ConditionalContent<TrueContent, FalseContent>
    { ConditionalContent(.second(second)) }
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { AnyView(content) }
}

/// The views of a builder block, each at a place of its own.
public struct TupleView<each Content: View>: View, PrimitiveView {
    let content: (repeat each Content)
    public init(_ content: repeat each Content) { self.content = (repeat each content) }
    public var body: Never { primitiveBody }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        var index = 0
        for child in repeat each content {
            graph.walk(child, at: path.child(index), in: environment)
            index += 1
        }
    }
}

/// A view that holds others side by side (a builder block's): a `TabView` picks one of them.
@MainActor protocol ViewChildren {
    var children: [any View] { get }
}

extension TupleView: ViewChildren {
    var children: [any View] {
        var views: [any View] = []
        for child in repeat each content { views.append(child) }
        return views
    }
}

/// A view with a `tag`, under whatever modifiers came after it.
@MainActor protocol Tagged {
    var tag: AnyHashable? { get }
}

/// `.tag(_:)`: the value a `TabView` or `Picker` selection is matched with.
struct TaggedView<Content: View>: View, PrimitiveView, Tagged {
    let content: Content
    let tag: AnyHashable?
    var body: Never { primitiveBody }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(content, at: path.child(0), in: environment)
    }
}

/// One of two views, as an `if`/`else` builds: each branch has its own place, so state and
/// `onAppear` follow the branch taken.
public struct ConditionalContent<TrueContent: View, FalseContent: View>: View, PrimitiveView {
    enum Storage {
        case first(TrueContent)
        case second(FalseContent)
    }
    let storage: Storage
    init(_ storage: Storage) { self.storage = storage }
    public var body: Never { primitiveBody }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        switch storage {
        case .first(let view): graph.walk(view, at: path.child("if"), in: environment)
        case .second(let view): graph.walk(view, at: path.child("else"), in: environment)
        }
    }
}

extension Optional: View where Wrapped: View {
    public var body: Never { fatalError("Optional is a primitive view") }
}

extension Optional: PrimitiveView where Wrapped: View {
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        if let view = self { graph.walk(view, at: path.child("some"), in: environment) }
    }
}

public struct EmptyView: View, PrimitiveView {
    public init() {}
    public var body: Never { primitiveBody }
    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {}
}

/// A view whose type is erased.
public struct AnyView: View, PrimitiveView {
    let view: any View
    public init<V: View>(_ view: V) { self.view = view }
    public init<V: View>(erasing view: V) { self.view = view }
    public var body: Never { primitiveBody }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        graph.walk(view, at: path.child(String(describing: type(of: view))), in: environment)
    }
}

/// Views that hold others and draw nothing of their own: the graph visits their content.
public struct Group<Content: View>: View, ContentContainer {
    let content: Content
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
    public var body: Never { primitiveBody }
}

/// A view for each element, each at the place its identifier gives.
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content: View>: View, PrimitiveView {
    let data: Data
    let id: (Data.Element) -> ID
    let content: (Data.Element) -> Content

    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content)
    {
        self.data = data
        self.id = { $0[keyPath: id] }
        self.content = content
    }

    public var body: Never { primitiveBody }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        for element in data { graph.walk(content(element), at: path.child("\(id(element))"), in: environment) }
    }
}

extension ForEach where Data.Element: Identifiable, ID == Data.Element.ID {
    public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) {
        self.init(data, id: \.id, content: content)
    }
}

extension ForEach where Data == Range<Int>, ID == Int {
    public init(_ data: Range<Int>, @ViewBuilder content: @escaping (Int) -> Content) {
        self.init(data, id: \.self, content: content)
    }
}
