import Foundation
import Observation

/// A property a view keeps across evaluations, handed its storage by the graph.
public protocol DynamicProperty {}

/// How the graph hands a dynamic property its storage and environment before the body is
/// evaluated: the property's box then points at what is kept for its place.
protocol DynamicPropertyStorage {
    @MainActor func install(in graph: ViewGraph, key: String, environment: EnvironmentValues)
}

/// A value that may change, and tells the graph when it does.
final class Box<Value>: @unchecked Sendable {
    var value: Value {
        didSet { changed() }
    }
    init(_ value: Value) { self.value = value }

    func changed() { DispatchQueue.main.async { MainActor.assumeIsolated { ViewGraph.current?.invalidate() } } }
}

/// Where a property wrapper's value is: its own box until the graph hands it the kept one.
final class Cell<Value>: @unchecked Sendable {
    var box: Box<Value>
    init(_ value: Value) { box = Box(value) }
}

/// A view's own value, kept by its place across evaluations.
@propertyWrapper public struct State<Value>: DynamicProperty, DynamicPropertyStorage {
    let cell: Cell<Value>

    public init(wrappedValue value: Value) { cell = Cell(value) }
    public init(initialValue value: Value) { self.init(wrappedValue: value) }
    public init() where Value: ExpressibleByNilLiteral { self.init(wrappedValue: nil) }

    public var wrappedValue: Value {
        get { cell.box.value }
        nonmutating set { cell.box.value = newValue }
    }

    public var projectedValue: Binding<Value> {
        let box = cell.box
        return Binding(get: { box.value }, set: { box.value = $0 })
    }

    func install(in graph: ViewGraph, key: String, environment: EnvironmentValues) {
        cell.box = graph.storage(at: key) { cell.box }
    }
}

/// A way to read and write a value someone else keeps.
@propertyWrapper @dynamicMemberLookup public struct Binding<Value> {
    private let get: () -> Value
    private let set: (Value) -> Void

    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {
        self.get = get
        self.set = set
    }

    public init(projectedValue: Binding<Value>) { self = projectedValue }

    public static func constant(_ value: Value) -> Binding<Value> { Binding(get: { value }, set: { _ in }) }

    public var wrappedValue: Value {
        get { get() }
        nonmutating set { set(newValue) }
    }

    public var projectedValue: Binding<Value> { self }

    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        Binding<Subject>(
            get: { self.wrappedValue[keyPath: keyPath] },
            set: { newValue in
                var value = self.wrappedValue
                value[keyPath: keyPath] = newValue
                self.wrappedValue = value
            })
    }
}

extension Binding: @unchecked Sendable {}

/// An object's changes re-evaluate the views that read it: its `objectWillChange`, watched by
/// the graph for one place.
final class ObjectWatch: @unchecked Sendable {
    private var watched: ObjectIdentifier?
    private var cancellable: AnyCancellable?

    func watch<Object: ObservableObject>(_ object: Object) {
        guard watched != ObjectIdentifier(object) else { return }
        watched = ObjectIdentifier(object)
        cancellable = object.objectWillChange.sink { _ in
            DispatchQueue.main.async { MainActor.assumeIsolated { ViewGraph.current?.invalidate() } }
        }
    }
}

/// An object a view makes once, kept by its place, whose changes re-evaluate it.
@propertyWrapper public struct StateObject<ObjectType: ObservableObject>: DynamicProperty, DynamicPropertyStorage {
    final class Storage: @unchecked Sendable {
        let make: () -> ObjectType
        lazy var object: ObjectType = make()
        let watch = ObjectWatch()
        init(_ make: @escaping () -> ObjectType) { self.make = make }
    }
    let cell: Cell<Storage>

    public init(wrappedValue thunk: @autoclosure @escaping () -> ObjectType) { cell = Cell(Storage(thunk)) }

    public var wrappedValue: ObjectType { cell.box.value.object }
    public var projectedValue: ObservedObject<ObjectType>.Wrapper { .init(object: wrappedValue) }

    func install(in graph: ViewGraph, key: String, environment: EnvironmentValues) {
        let made = cell.box.value
        cell.box = graph.storage(at: key) { Box(made) }
        cell.box.value.watch.watch(cell.box.value.object)
    }
}

/// An object someone else owns, whose changes re-evaluate the view.
@propertyWrapper public struct ObservedObject<ObjectType: ObservableObject>: DynamicProperty, DynamicPropertyStorage {
    @dynamicMemberLookup public struct Wrapper {
        let object: ObjectType
        public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>) -> Binding<
            Subject
        > {
            let object = object
            return Binding(get: { object[keyPath: keyPath] }, set: { object[keyPath: keyPath] = $0 })
        }
    }

    public var wrappedValue: ObjectType

    public init(wrappedValue: ObjectType) { self.wrappedValue = wrappedValue }
    public init(initialValue: ObjectType) { self.init(wrappedValue: initialValue) }

    public var projectedValue: Wrapper { Wrapper(object: wrappedValue) }

    func install(in graph: ViewGraph, key: String, environment: EnvironmentValues) {
        graph.storage(at: key) { ObjectWatch() }.watch(wrappedValue)
    }
}

/// An object set above with `environmentObject(_:)`, by its type.
@propertyWrapper public struct EnvironmentObject<ObjectType: ObservableObject>: DynamicProperty, DynamicPropertyStorage
{
    let cell = Cell<ObjectType?>(nil)

    public init() {}

    public var wrappedValue: ObjectType {
        guard let object = cell.box.value else {
            fatalError(
                "No ObservableObject of type \(ObjectType.self) found. A View.environmentObject(_:) for "
                    + "\(ObjectType.self) may be missing as an ancestor of this view.")
        }
        return object
    }

    public var projectedValue: ObservedObject<ObjectType>.Wrapper { .init(object: wrappedValue) }

    func install(in graph: ViewGraph, key: String, environment: EnvironmentValues) {
        guard let object = environment.objects[ObjectIdentifier(ObjectType.self)] as? ObjectType else { return }
        cell.box = Box(object)
        graph.storage(at: key) { ObjectWatch() }.watch(object)
    }
}

/// A value of the environment (`\.scenePhase`), or an `@Observable` object set with
/// `environment(_:)`, as of the view's last evaluation.
@propertyWrapper public struct Environment<Value>: DynamicProperty, DynamicPropertyStorage {
    private enum Source {
        case keyPath(KeyPath<EnvironmentValues, Value>)
        case object(ObjectIdentifier)
    }
    private let source: Source
    private let cell: Cell<Value?>

    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {
        source = .keyPath(keyPath)
        cell = Cell(nil)
    }

    public init(_ type: Value.Type) where Value: AnyObject & Observable {
        source = .object(ObjectIdentifier(type))
        cell = Cell(nil)
    }

    public var wrappedValue: Value {
        if let value = cell.box.value { return value }
        guard case .keyPath(let keyPath) = source else {
            fatalError("No Observable object of type \(Value.self) found: a View.environment(_:) may be missing")
        }
        return EnvironmentValues()[keyPath: keyPath]
    }

    func install(in graph: ViewGraph, key: String, environment: EnvironmentValues) {
        switch source {
        case .keyPath(let keyPath): cell.box = Box(environment[keyPath: keyPath])
        case .object(let type): cell.box = Box(environment.objects[type] as? Value)
        }
    }
}

/// A value kept in the app's defaults under `key` (`UserDefaults.standard`, or `store`):
/// written there as the app sets it, read back as the app reads it.
@propertyWrapper public struct AppStorage<Value>: DynamicProperty {
    private let key: String
    private let defaultValue: Value
    private let store: UserDefaults
    private let read: (Any?) -> Value?
    private let write: (Value) -> Any?

    private init(
        _ key: String, _ defaultValue: Value, _ store: UserDefaults?, read: @escaping (Any?) -> Value?,
        write: @escaping (Value) -> Any?
    ) {
        self.key = key
        self.defaultValue = defaultValue
        self.store = store ?? .standard
        self.read = read
        self.write = write
    }

    public var wrappedValue: Value {
        get { read(store.object(forKey: key)) ?? defaultValue }
        nonmutating set {
            if let stored = write(newValue) { store.set(stored, forKey: key) } else { store.removeObject(forKey: key) }
            DispatchQueue.main.async { MainActor.assumeIsolated { ViewGraph.current?.invalidate() } }
        }
    }

    public var projectedValue: Binding<Value> {
        let storage = self
        return Binding(get: { storage.wrappedValue }, set: { storage.wrappedValue = $0 })
    }
}

extension AppStorage {
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil)
    where Value == Bool { self.init(key, wrappedValue, store, read: { $0 as? Bool }, write: { $0 }) }
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil)
    where Value == Int { self.init(key, wrappedValue, store, read: { $0 as? Int }, write: { $0 }) }
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil)
    where Value == Double { self.init(key, wrappedValue, store, read: { $0 as? Double }, write: { $0 }) }
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil)
    where Value == String { self.init(key, wrappedValue, store, read: { $0 as? String }, write: { $0 }) }
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil)
    where Value == Data { self.init(key, wrappedValue, store, read: { $0 as? Data }, write: { $0 }) }
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil)
    where Value == URL {
        self.init(
            key, wrappedValue, store, read: { ($0 as? String).flatMap(URL.init(string:)) }, write: { $0.absoluteString }
        )
    }
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil)
    where Value: RawRepresentable, Value.RawValue == String {
        self.init(
            key, wrappedValue, store, read: { ($0 as? String).flatMap(Value.init(rawValue:)) }, write: { $0.rawValue })
    }
    public init(wrappedValue: Value, _ key: String, store: UserDefaults? = nil)
    where Value: RawRepresentable, Value.RawValue == Int {
        self.init(
            key, wrappedValue, store, read: { ($0 as? Int).flatMap(Value.init(rawValue:)) }, write: { $0.rawValue })
    }
    public init(_ key: String, store: UserDefaults? = nil) where Value == String? {
        self.init(key, nil, store, read: { $0 as? String }, write: { $0 })
    }
    public init(_ key: String, store: UserDefaults? = nil) where Value == Int? {
        self.init(key, nil, store, read: { $0 as? Int }, write: { $0 })
    }
    public init(_ key: String, store: UserDefaults? = nil) where Value == Bool? {
        self.init(key, nil, store, read: { $0 as? Bool }, write: { $0 })
    }
}

/// Which control has the keyboard: none does here, unless the app says so.
@propertyWrapper public struct FocusState<Value: Hashable>: DynamicProperty, DynamicPropertyStorage {
    @propertyWrapper public struct Binding {
        let box: Box<Value>
        public var wrappedValue: Value {
            get { box.value }
            nonmutating set { box.value = newValue }
        }
        public var projectedValue: Binding { self }
    }
    let cell: Cell<Value>

    public init() where Value == Bool { cell = Cell(false) }
    public init<T: Hashable>() where Value == T? { cell = Cell(nil) }

    public var wrappedValue: Value {
        get { cell.box.value }
        nonmutating set { cell.box.value = newValue }
    }
    public var projectedValue: Binding { Binding(box: cell.box) }

    func install(in graph: ViewGraph, key: String, environment: EnvironmentValues) {
        cell.box = graph.storage(at: key) { cell.box }
    }
}
