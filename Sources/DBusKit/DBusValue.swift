#if canImport(Glibc)
    import Glibc
#endif

/// One D-Bus value of any type. Containers carry their element types so that empty arrays
/// and dictionaries still have a signature.
public indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    /// A file descriptor. Received ones are owned by the receiver, which must close them.
    case unixFD(Int32)
    case array(element: Signature, [DBusValue])
    case dictionary(key: Signature, value: Signature, [DictEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    public struct DictEntry: Hashable, Sendable {
        public var key: DBusValue
        public var value: DBusValue
        public init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The single complete type of this value.
    public var signature: Signature {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element, _): Signature(unchecked: "a" + element.rawValue)
        case .dictionary(let key, let value, _): Signature(unchecked: "a{\(key.rawValue)\(value.rawValue)}")
        case .structure(let fields): Signature(unchecked: "(" + fields.map(\.signature.rawValue).joined() + ")")
        }
    }

    /// Checks what the wire format needs beyond the Swift type: strings without NUL, array
    /// elements of the declared type, dictionary keys of a basic type, no empty struct, element
    /// and value types of one complete type each, a valid signature (at most 255 bytes and 32
    /// nested arrays or structs), at most 64 nested containers counting variants.
    public func validate() throws(DBusError) {
        _ = try Signature(signature.rawValue)
        try validate(depth: 0)
    }

    /// `depth`: the containers around this value, as libdbus counts them when it checks a body.
    private func validate(depth: Int) throws(DBusError) {
        guard depth <= 64 else { throw .invalidArgs("value nested more than 64 containers deep") }
        switch self {
        case .string(let text):
            if text.utf8.contains(0) { throw .invalidArgs("string contains a NUL byte") }
        case .array(let element, let items):
            guard element.completeTypes.count == 1 else {
                throw .invalidArgs("array element type \"\(element)\" is not one complete type")
            }
            // libdbus does not descend into arrays of fixed-size values, and neither need we.
            let fixed = element.rawValue.utf8.count == 1 && "ybnqiuxtdh".utf8.contains(element.rawValue.utf8.first!)
            for item in items {
                guard item.signature == element else {
                    throw .invalidArgs("array of \(element) holds a \(item.signature)")
                }
                if !fixed { try item.validate(depth: depth + 1) }
            }
        case .dictionary(let key, let value, let entries):
            guard key.rawValue.utf8.count == 1, TypeCode.basic.contains(key.rawValue.utf8.first!) else {
                throw .invalidArgs("dictionary key type \(key) is not basic")
            }
            guard value.completeTypes.count == 1 else {
                throw .invalidArgs("dictionary value type \"\(value)\" is not one complete type")
            }
            for entry in entries {
                guard entry.key.signature == key, entry.value.signature == value else {
                    throw .invalidArgs(
                        "dictionary {\(key)\(value)} holds {\(entry.key.signature)\(entry.value.signature)}")
                }
                try entry.key.validate(depth: depth + 2)
                try entry.value.validate(depth: depth + 2)
            }
        case .structure(let fields):
            if fields.isEmpty { throw .invalidArgs("empty struct") }
            for field in fields { try field.validate(depth: depth + 1) }
        case .variant(let inner):
            // A variant carries its value's type as a signature of its own.
            _ = try Signature(inner.signature.rawValue)
            try inner.validate(depth: depth + 1)
        default:
            break
        }
    }
}

extension Array where Element == DBusValue {
    /// The signature of a message body made of these values.
    public var signature: Signature { Signature(unchecked: map(\.signature.rawValue).joined()) }
}

// MARK: - Size on the wire

extension DBusValue {
    /// At least the bytes this value takes in a message wherever it starts, alignment padding
    /// included; close for strings and arrays of fixed-size values, generous for small values.
    var wireSizeBound: Int {
        switch self {
        case .string(let text): 8 + text.utf8.count
        case .objectPath(let path): 8 + path.rawValue.utf8.count
        case .signature(let signature): 2 + signature.rawValue.utf8.count
        case .array(let element, let items):
            16 + (Self.fixedWidth(element).map { items.count * $0 } ?? items.reduce(0) { $0 + $1.wireSizeBound })
        case .dictionary(_, _, let entries):
            16 + entries.reduce(0) { $0 + 8 + $1.key.wireSizeBound + $1.value.wireSizeBound }
        case .structure(let fields): 8 + fields.reduce(0) { $0 + $1.wireSizeBound }
        case .variant(let inner): 10 + inner.signature.rawValue.utf8.count + inner.wireSizeBound
        default: 16
        }
    }

    /// The size of one element of an array of a fixed-size type: such elements are packed.
    private static func fixedWidth(_ type: Signature) -> Int? {
        switch type.rawValue {
        case "y": 1
        case "n", "q": 2
        case "b", "i", "u", "h": 4
        case "x", "t", "d": 8
        default: nil
        }
    }
}

// MARK: - Received descriptors

extension DBusValue {
    /// Closes every unix fd in this value. Containers whose type can hold none are skipped,
    /// so a large byte array costs nothing.
    func closeUnixFDs() {
        switch self {
        case .unixFD(let fd):
            close(fd)
        case .array(let element, let items) where Self.mayHoldUnixFD(element):
            for item in items { item.closeUnixFDs() }
        case .dictionary(let key, let value, let entries) where Self.mayHoldUnixFD(key) || Self.mayHoldUnixFD(value):
            for entry in entries {
                entry.key.closeUnixFDs()
                entry.value.closeUnixFDs()
            }
        case .structure(let fields):
            for field in fields { field.closeUnixFDs() }
        case .variant(let inner):
            inner.closeUnixFDs()
        default:
            break
        }
    }

    private static func mayHoldUnixFD(_ type: Signature) -> Bool {
        type.rawValue.utf8.contains { $0 == TypeCode.unixFD || $0 == TypeCode.variant }
    }
}

// MARK: - Reading values

extension DBusValue {
    public var string: String? { if case .string(let v) = self { v } else { nil } }
    public var bool: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var byte: UInt8? { if case .byte(let v) = self { v } else { nil } }
    public var int32: Int32? { if case .int32(let v) = self { v } else { nil } }
    public var uint32: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    public var int64: Int64? { if case .int64(let v) = self { v } else { nil } }
    public var uint64: UInt64? { if case .uint64(let v) = self { v } else { nil } }
    public var double: Double? { if case .double(let v) = self { v } else { nil } }
    public var objectPath: ObjectPath? { if case .objectPath(let v) = self { v } else { nil } }
    public var variant: DBusValue? { if case .variant(let v) = self { v } else { nil } }
    public var fields: [DBusValue]? { if case .structure(let v) = self { v } else { nil } }
    public var items: [DBusValue]? { if case .array(_, let v) = self { v } else { nil } }

    /// A dictionary with string keys as a Swift dictionary (`a{sv}` gives variants as values).
    public var stringKeyed: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            result[key] = entry.value
        }
        return result
    }
}

// MARK: - Building values

extension DBusValue {
    /// `a{sv}` from a Swift dictionary, sorted by key so the wire order is stable.
    public static func vardict(_ values: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: "s", value: "v",
            values.sorted { $0.key < $1.key }.map {
                DictEntry(.string($0.key), .variant($0.value))
            })
    }

    /// `as` from Swift strings.
    public static func strings(_ values: [String]) -> DBusValue {
        .array(element: "s", values.map(DBusValue.string))
    }
}

extension DBusValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension DBusValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
