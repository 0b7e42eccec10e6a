import Foundation
import Observation

/// Where a view is in the tree: its state and its effects are kept by this.
struct ViewPath: Hashable, CustomStringConvertible {
    let description: String
    static let root = ViewPath(description: "")
    func child(_ part: some CustomStringConvertible) -> ViewPath { ViewPath(description: "\(description)/\(part)") }
}

/// The app's views as SwiftUI keeps them: evaluated from the app's scene down, again whenever
/// state they read changes (on the main queue, once however many changes came at once). The
/// state of each view lives here, by its place; what the views ask to run (`onAppear`, `task`,
/// `onChange`) runs after the evaluation, in order, as SwiftUI runs it after an update.
@MainActor final class ViewGraph {
    /// The app's one graph, once its scene is evaluated.
    static var current: ViewGraph?

    private let root: @MainActor (ViewGraph) -> Void
    private(set) var environment = EnvironmentValues()
    /// Each dynamic property's storage, by the place of its view and its name.
    private var storage: [String: AnyObject] = [:]
    /// The places whose `onAppear` ran and that were there at the last evaluation.
    private var appeared: [ViewPath: (onDisappear: [@MainActor () -> Void], task: Task<Void, Never>?)] = [:]
    /// This evaluation's places with appearance effects, in the order the views came.
    private var order: [ViewPath] = []
    private var present:
        [ViewPath: (
            onAppear: [@MainActor () -> Void], onDisappear: [@MainActor () -> Void],
            task: (@MainActor @Sendable () async -> Void)?
        )] = [:]
    /// The last value each `onChange` saw, by its place.
    private var lastValues: [ViewPath: Any] = [:]
    /// What runs once this evaluation is over.
    private var after: [@MainActor () -> Void] = []
    private var scheduled = false

    init(root: @escaping @MainActor (ViewGraph) -> Void) { self.root = root }

    /// Evaluates every view now with `environment` changed, then runs what they asked.
    func update(_ change: (inout EnvironmentValues) -> Void = { _ in }) {
        change(&environment)
        present = [:]
        order = []
        after = []
        withObservationTracking {
            root(self)
        } onChange: {
            // A property an evaluation read changed: evaluate again, on the main queue.
            DispatchQueue.main.async { MainActor.assumeIsolated { ViewGraph.current?.invalidate() } }
        }
        settleAppearances()
        for action in after { action() }
    }

    /// Something a view read changed: evaluate again soon, once.
    func invalidate() {
        guard !scheduled else { return }
        scheduled = true
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                self.scheduled = false
                self.update()
            }
        }
    }

    /// Evaluates `view` at `path`: a primitive view visits what it holds; any other gets its
    /// dynamic properties (its state, objects and environment) and its body is evaluated.
    func walk(_ view: any View, at path: ViewPath, in environment: EnvironmentValues) {
        if let primitive = view as? PrimitiveView {
            primitive.visit(self, at: path, in: environment)
            return
        }
        if represent(view, at: path, in: environment) { return }
        install(Mirror(reflecting: view), at: path, in: environment)
        walk(body(of: view), at: path.child(String(describing: type(of: view))), in: environment)
    }

    private func body<V: View>(of view: V) -> any View { view.body }

    /// Hands each dynamic property of a value its storage and environment.
    func install(_ mirror: Mirror, at path: ViewPath, in environment: EnvironmentValues) {
        for child in mirror.children {
            guard let property = child.value as? DynamicPropertyStorage else { continue }
            property.install(in: self, key: "\(path).\(child.label ?? "?")", environment: environment)
        }
    }

    /// The storage at `key`, made by `make` the first time.
    func storage<Storage: AnyObject>(at key: String, _ make: () -> Storage) -> Storage {
        if let existing = storage[key] as? Storage { return existing }
        let made = make()
        storage[key] = made
        return made
    }

    // MARK: - Effects

    func onAppear(at path: ViewPath, _ action: @escaping @MainActor () -> Void) {
        note(path)
        present[path]?.onAppear.append(action)
    }

    func onDisappear(at path: ViewPath, _ action: @escaping @MainActor () -> Void) {
        note(path)
        present[path]?.onDisappear.append(action)
    }

    func task(at path: ViewPath, _ action: @escaping @MainActor @Sendable () async -> Void) {
        note(path)
        present[path]?.task = action
    }

    private func note(_ path: ViewPath) {
        guard present[path] == nil else { return }
        present[path] = ([], [], nil)
        order.append(path)
    }

    /// `action(old, new)` after this evaluation when `value` differs from the last one seen here.
    func onChange<Value: Equatable>(
        of value: Value, at path: ViewPath, initial: Bool, _ action: @escaping @MainActor (Value, Value) -> Void
    ) {
        let last = lastValues[path] as? Value
        lastValues[path] = value
        if let last, last != value {
            after.append { action(last, value) }
        } else if last == nil, initial {
            after.append { action(value, value) }
        }
    }

    /// A place new in this evaluation appears (its `onAppear`, then its `task`); one gone
    /// disappears (its `onDisappear`, its task cancelled).
    private func settleAppearances() {
        for (path, gone) in appeared where present[path] == nil {
            appeared[path] = nil
            gone.task?.cancel()
            after.append(contentsOf: gone.onDisappear)
        }
        for path in order {
            guard let effects = present[path] else { continue }
            guard appeared[path] == nil else {
                appeared[path]?.onDisappear = effects.onDisappear
                continue
            }
            appeared[path] = (effects.onDisappear, nil)
            after.append(contentsOf: effects.onAppear)
            if let task = effects.task {
                after.append { self.appeared[path]?.task = Task { await task() } }
            }
        }
    }
}
