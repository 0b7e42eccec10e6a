/// Validation of the names the D-Bus specification constrains. libdbus aborts or prints a
/// warning on invalid names, so every name is checked here before it reaches libdbus.
public enum DBusNames {
    /// `/` or `/` followed by `/`-separated non-empty elements of `[A-Za-z0-9_]`.
    public static func isValidObjectPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
            } else {
                guard isElementByte(byte, allowHyphen: false) else { return false }
                previousSlash = false
            }
        }
        return true
    }

    /// Two or more `.`-separated elements of `[A-Za-z0-9_]`, none starting with a digit.
    public static func isValidInterfaceName(_ name: String) -> Bool {
        dottedName(name, allowHyphen: false, allowLeadingDigit: false)
    }

    /// Error names follow the interface-name rules.
    public static func isValidErrorName(_ name: String) -> Bool { isValidInterfaceName(name) }

    /// One element of `[A-Za-z0-9_]`, not starting with a digit.
    public static func isValidMemberName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255, !isDigit(bytes[0]) else { return false }
        return bytes.allSatisfy { isElementByte($0, allowHyphen: false) }
    }

    /// A unique name (`:1.42`) or a well-known name (`dev.sdlab.Hub`).
    public static func isValidBusName(_ name: String) -> Bool {
        if name.hasPrefix(":") {
            return dottedName(String(name.dropFirst()), allowHyphen: true, allowLeadingDigit: true)
                && name.utf8.count <= 255
        }
        return dottedName(name, allowHyphen: true, allowLeadingDigit: false)
    }

    private static func dottedName(_ name: String, allowHyphen: Bool, allowLeadingDigit: Bool) -> Bool {
        guard name.utf8.count <= 255 else { return false }
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            let bytes = Array(element.utf8)
            guard let first = bytes.first else { return false }
            if !allowLeadingDigit, isDigit(first) { return false }
            return bytes.allSatisfy { isElementByte($0, allowHyphen: allowHyphen) }
        }
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
