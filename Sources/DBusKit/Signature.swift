/// A validated D-Bus type signature: zero or more complete types (`"s"`, `"a{sv}"`, `"(sst)"`).
public struct Signature: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// Fails for anything the D-Bus specification does not allow: unknown codes, incomplete
    /// containers, dict entries outside arrays or with a non-basic key, more than 255 bytes,
    /// more than 32 nested arrays or structs.
    public init(_ text: String) throws(DBusError) {
        guard text.utf8.count <= 255 else { throw .invalidSignature(text, "longer than 255 bytes") }
        var parser = SignatureParser(bytes: Array(text.utf8))
        while !parser.atEnd {
            _ = try parser.completeType(arrays: 0, structs: 0).mapError(text)
        }
        rawValue = text
    }

    /// For signatures written in the source; a bad literal is a programming error.
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("bad signature literal \(value): \(error)") }
    }

    init(unchecked text: String) { rawValue = text }

    public var description: String { rawValue }

    /// The complete types this signature is made of, in order.
    public var completeTypes: [Signature] {
        var parser = SignatureParser(bytes: Array(rawValue.utf8))
        var result: [Signature] = []
        while !parser.atEnd {
            let start = parser.index
            _ = try? parser.completeType(arrays: 0, structs: 0).get()
            result.append(Signature(unchecked: String(decoding: parser.bytes[start..<parser.index], as: UTF8.self)))
        }
        return result
    }

    public static func + (lhs: Signature, rhs: Signature) -> Signature {
        Signature(unchecked: lhs.rawValue + rhs.rawValue)
    }

    public static let empty = Signature(unchecked: "")
}

/// The type codes of the D-Bus wire format.
enum TypeCode {
    static let byte = UInt8(ascii: "y"), boolean = UInt8(ascii: "b")
    static let int16 = UInt8(ascii: "n"), uint16 = UInt8(ascii: "q")
    static let int32 = UInt8(ascii: "i"), uint32 = UInt8(ascii: "u")
    static let int64 = UInt8(ascii: "x"), uint64 = UInt8(ascii: "t")
    static let double = UInt8(ascii: "d"), string = UInt8(ascii: "s")
    static let objectPath = UInt8(ascii: "o"), signature = UInt8(ascii: "g")
    static let unixFD = UInt8(ascii: "h"), array = UInt8(ascii: "a")
    static let variant = UInt8(ascii: "v")
    static let structOpen = UInt8(ascii: "("), structClose = UInt8(ascii: ")")
    static let dictOpen = UInt8(ascii: "{"), dictClose = UInt8(ascii: "}")
    static let structType = UInt8(ascii: "r"), dictEntryType = UInt8(ascii: "e")

    static let basic: Set<UInt8> = [
        byte, boolean, int16, uint16, int32, uint32, int64, uint64,
        double, string, objectPath, signature, unixFD,
    ]
}

private struct SignatureParser {
    let bytes: [UInt8]
    var index = 0
    var atEnd: Bool { index >= bytes.count }

    enum Failure: Error { case bad(String) }

    mutating func completeType(arrays: Int, structs: Int) -> Result<Void, Failure> {
        guard arrays <= 32, structs <= 32 else { return .failure(.bad("nested more than 32 deep")) }
        guard !atEnd else { return .failure(.bad("ends inside a container")) }
        let code = bytes[index]
        index += 1
        if TypeCode.basic.contains(code) || code == TypeCode.variant { return .success(()) }
        switch code {
        case TypeCode.array:
            if !atEnd, bytes[index] == TypeCode.dictOpen {
                index += 1
                guard !atEnd, TypeCode.basic.contains(bytes[index]) else {
                    return .failure(.bad("dict entry key must be a basic type"))
                }
                index += 1
                if case .failure(let f) = completeType(arrays: arrays + 1, structs: structs) { return .failure(f) }
                guard !atEnd, bytes[index] == TypeCode.dictClose else {
                    return .failure(.bad("dict entry must have exactly two types"))
                }
                index += 1
                return .success(())
            }
            return completeType(arrays: arrays + 1, structs: structs)
        case TypeCode.structOpen:
            guard !atEnd, bytes[index] != TypeCode.structClose else { return .failure(.bad("empty struct")) }
            while !atEnd, bytes[index] != TypeCode.structClose {
                if case .failure(let f) = completeType(arrays: arrays, structs: structs + 1) { return .failure(f) }
            }
            guard !atEnd else { return .failure(.bad("unclosed struct")) }
            index += 1
            return .success(())
        case TypeCode.dictOpen:
            return .failure(.bad("dict entry outside an array"))
        default:
            return .failure(.bad("unknown type code '\(Character(Unicode.Scalar(code)))'"))
        }
    }
}

private extension Result where Failure == SignatureParser.Failure {
    func mapError(_ text: String) throws(DBusError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(.bad(let why)): throw DBusError.invalidSignature(text, why)
        }
    }
}
