/// Validation of the names the D-Bus specification constrains. libdbus aborts or prints a
/// warning on invalid names, so every name is checked here before it reaches libdbus.
public enum DBusNames {
    // Each check is one pass over the UTF-8 bytes, without copying: names are checked on every
    // message sent.

    /// `/` or `/` followed by `/`-separated non-empty elements of `[A-Za-z0-9_]`.
    public static func isValidObjectPath(_ path: String) -> Bool {
        var previous: UInt8 = 0
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if previous == UInt8(ascii: "/") { return false }
            } else if previous == 0 || !isElementByte(byte, allowHyphen: false) {
                return false
            }
            previous = byte
        }
        return previous != 0 && (previous != UInt8(ascii: "/") || path.utf8.count == 1)
    }

    /// Two or more `.`-separated elements of `[A-Za-z0-9_]`, none starting with a digit.
    public static func isValidInterfaceName(_ name: String) -> Bool {
        dottedName(name.utf8, allowHyphen: false, allowLeadingDigit: false)
    }

    /// Error names follow the interface-name rules.
    public static func isValidErrorName(_ name: String) -> Bool { isValidInterfaceName(name) }

    /// One element of `[A-Za-z0-9_]`, not starting with a digit.
    public static func isValidMemberName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !isDigit(first), name.utf8.count <= 255 else { return false }
        return name.utf8.allSatisfy { isElementByte($0, allowHyphen: false) }
    }

    /// A unique name (`:1.42`) or a well-known name (`dev.sdlab.Hub`).
    public static func isValidBusName(_ name: String) -> Bool {
        guard name.utf8.count <= 255 else { return false }
        if name.utf8.first == UInt8(ascii: ":") {
            return dottedName(name.utf8.dropFirst(), allowHyphen: true, allowLeadingDigit: true)
        }
        return dottedName(name.utf8, allowHyphen: true, allowLeadingDigit: false)
    }

    private static func dottedName(
        _ bytes: some Collection<UInt8>, allowHyphen: Bool, allowLeadingDigit: Bool
    ) -> Bool {
        guard bytes.count <= 255 else { return false }
        var elements = 1
        var elementLength = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard elementLength > 0 else { return false }
                elements += 1
                elementLength = 0
            } else {
                guard isElementByte(byte, allowHyphen: allowHyphen) else { return false }
                if elementLength == 0, !allowLeadingDigit, isDigit(byte) { return false }
                elementLength += 1
            }
        }
        return elements >= 2 && elementLength > 0
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isElementByte(_ byte: UInt8, allowHyphen: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            return true
        case UInt8(ascii: "-"):
            return allowHyphen
        default:
            return false
        }
    }
}

/// A validated object path.
/// A validated object path (`/dev/sdlab/Hub`).
public struct ObjectPath: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(_ path: String) throws(DBusError) {
        guard DBusNames.isValidObjectPath(path) else { throw .invalidArgs("invalid object path \"\(path)\"") }
        rawValue = path
    }

    public init(stringLiteral value: String) {
        precondition(DBusNames.isValidObjectPath(value), "bad object path literal \(value)")
        rawValue = value
    }

    init(unchecked path: String) { rawValue = path }

    public var description: String { rawValue }
    public static func < (lhs: ObjectPath, rhs: ObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }
    public static let root: ObjectPath = "/"
}
