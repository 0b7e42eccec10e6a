import Foundation

/// A view with an effect or an environment change: the graph applies it at the view's place,
/// then evaluates the view.
struct ModifiedView<Content: View>: View, PrimitiveView {
    let content: Content
    let apply: @MainActor (ViewGraph, ViewPath, inout EnvironmentValues) -> Void
    var body: Never { primitiveBody }

    func visit(_ graph: ViewGraph, at path: ViewPath, in environment: EnvironmentValues) {
        var inner = environment
        apply(graph, path, &inner)
        graph.walk(content, at: path.child(0), in: inner)
    }
}

extension ModifiedView: Tagged {
    var tag: AnyHashable? { (content as? Tagged)?.tag }
}

/// What a subscription of `onReceive` keeps for its place.
final class Subscription: @unchecked Sendable {
    var cancellable: AnyCancellable?
}

extension View {
    func modified(_ apply: @escaping @MainActor (ViewGraph, ViewPath, inout EnvironmentValues) -> Void)
        -> ModifiedView<Self>
    { ModifiedView(content: self, apply: apply) }

    // MARK: - When the view comes and goes

    /// Runs when the view first appears, after the evaluation that shows it.
    public func onAppear(perform action: (() -> Void)? = nil) -> some View {
        modified { graph, path, _ in if let action { graph.onAppear(at: path, action) } }
    }

    public func onDisappear(perform action: (() -> Void)? = nil) -> some View {
        modified { graph, path, _ in if let action { graph.onDisappear(at: path, action) } }
    }

    /// Starts `action` when the view appears; cancels it when the view goes.
    public func task(
        priority: TaskPriority = .userInitiated, _ action: @escaping @MainActor @Sendable () async -> Void
    ) -> some View {
        modified { graph, path, _ in graph.task(at: path, action) }
    }

    /// As `task(priority:_:)`, started again when `id` changes.
    public func task<T: Equatable>(
        id value: T, priority: TaskPriority = .userInitiated, _ action: @escaping @MainActor @Sendable () async -> Void
    ) -> some View {
        modified { graph, path, _ in graph.task(at: path.child("\(value)"), action) }
    }

    // MARK: - Changes

    /// iOS 14's form: the new value.
    public func onChange<V: Equatable>(of value: V, perform action: @escaping (_ newValue: V) -> Void) -> some View {
        modified { graph, path, _ in graph.onChange(of: value, at: path, initial: false) { action($1) } }
    }

    public func onChange<V: Equatable>(of value: V, initial: Bool = false, _ action: @escaping () -> Void)
        -> some View
    {
        modified { graph, path, _ in graph.onChange(of: value, at: path, initial: initial) { _, _ in action() } }
    }

    public func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some View {
        modified { graph, path, _ in graph.onChange(of: value, at: path, initial: initial, action) }
    }

    /// Runs `action` with each value `publisher` sends, on the main queue.
    public func onReceive<P: Publisher>(_ publisher: P, perform action: @escaping (P.Output) -> Void) -> some View
    where P.Failure == Never {
        modified { graph, path, _ in
            let subscription = graph.storage(at: "\(path).onReceive") { Subscription() }
            guard subscription.cancellable == nil else { return }
            subscription.cancellable = publisher.sink { value in
                let deliver = { MainActor.assumeIsolated { action(value) } }
                if Thread.isMainThread { deliver() } else { DispatchQueue.main.async(execute: deliver) }
            }
        }
    }

    /// The URLs the app is opened with: none is, here (MSAL's broker answers over the bus, not
    /// by opening the app), so `action` never runs.
    public func onOpenURL(perform action: @escaping (URL) -> Void) -> some View { self }

    // MARK: - The environment

    public func environmentObject<T: ObservableObject>(_ object: T) -> some View {
        modified { _, _, environment in environment.objects[ObjectIdentifier(T.self)] = object }
    }

    /// An `@Observable` object for `@Environment(T.self)` below.
    public func environment<T: AnyObject & Observable>(_ object: T?) -> some View {
        modified { _, _, environment in environment.objects[ObjectIdentifier(T.self)] = object }
    }

    public func environment<V>(_ keyPath: WritableKeyPath<EnvironmentValues, V>, _ value: V) -> some View {
        modified { _, _, environment in environment[keyPath: keyPath] = value }
    }

    // MARK: - Presentations: their content is evaluated while shown

    public func sheet<Content: View>(
        isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content
    ) -> some View {
        modified { graph, path, environment in
            if isPresented.wrappedValue { graph.walk(content(), at: path.child("sheet"), in: environment) }
        }
    }

    public func sheet<Item: Identifiable, Content: View>(
        item: Binding<Item?>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping (Item) -> Content
    ) -> some View {
        modified { graph, path, environment in
            if let item = item.wrappedValue { graph.walk(content(item), at: path.child("sheet"), in: environment) }
        }
    }

    public func fullScreenCover<Content: View>(
        isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content
    ) -> some View {
        modified { graph, path, environment in
            if isPresented.wrappedValue { graph.walk(content(), at: path.child("cover"), in: environment) }
        }
    }
}
