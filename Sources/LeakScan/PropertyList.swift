import Foundation

/// Property lists (binary, XML, OpenStep), NSKeyedArchiver archives (binary property lists of
/// their own) and JSON, read with Foundation's own parsers as the app reads them back: every
/// string as UTF-8 (a binary plist stores one that is not all ASCII as UTF-16, an XML one may
/// hold character references, JSON `\u` escapes), every data value, every key. Decided by
/// structure: the binary magic, an XML plist's root element, and for text that opens with `{`,
/// `(` or `[` whatever Foundation parses.
enum PropertyList {
    static let binaryMagic = Array("bplist0".utf8)

    static func read(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> FormatReading? {
        guard let (label, root) = parsed(bytes) else { return nil }
        var reading = LimitedReading(limit: limit)
        var pending: [Any] = [root]
        reading: while let object = pending.popLast() {
            switch object {
            case let text as String: guard reading.add(label, Array(text.utf8)) else { break reading }
            case let data as Data: guard reading.add(label, Array(data)) else { break reading }
            case let array as [Any]: pending += array
            case let dictionary as [String: Any]:
                for (key, value) in dictionary {
                    guard reading.add(label, Array(key.utf8)) else { break reading }
                    pending.append(value)
                }
            default: break  // numbers, dates, booleans, null
            }
        }
        return reading.reading
    }

    /// The root object and how it was read, or nil when the bytes are none of the formats.
    private static func parsed(_ bytes: UnsafeBufferPointer<UInt8>) -> (String, Any)? {
        if bytes.starts(with: binaryMagic) {
            return plist(bytes).map { root in (isKeyedArchive(root) ? "keyed-archive" : "plist", root) }
        }
        guard let first = firstCharacter(bytes) else { return nil }
        switch first {
        case UInt8(ascii: "<"):
            guard isXMLPropertyList(bytes) else { return nil }
            return plist(bytes).map { root in (isKeyedArchive(root) ? "keyed-archive" : "plist", root) }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let data = Data(buffer: bytes)
            if let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
                return ("json", root)
            }
            return first == UInt8(ascii: "{") ? plist(bytes).map { ("plist", $0) } : nil
        case UInt8(ascii: "("):
            return plist(bytes).map { ("plist", $0) }
        default: return nil
        }
    }

    private static func plist(_ bytes: UnsafeBufferPointer<UInt8>) -> Any? {
        try? PropertyListSerialization.propertyList(from: Data(buffer: bytes), options: [], format: nil)
    }

    /// An NSKeyedArchiver archive names its archiver and keeps its objects in `$objects`.
    private static func isKeyedArchive(_ root: Any) -> Bool {
        (root as? [String: Any])?["$archiver"] != nil
    }

    /// The first byte that is not white space (nor a UTF-8 byte-order mark).
    private static func firstCharacter(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt8? {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count ? bytes[index] : nil
    }

    /// An XML document whose root element, in its first KiB, is `plist`.
    private static func isXMLPropertyList(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let head = UnsafeBufferPointer(rebasing: bytes.prefix(1024))
        return firstPosition(of: Array("<plist".utf8), in: head, from: 0) != nil
    }
}
