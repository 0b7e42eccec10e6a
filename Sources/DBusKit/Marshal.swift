import CDBus

/// Conversion between `DBusValue` and libdbus message iterators.
enum Marshal {
    /// Appends values to a message body. Values must have been validated.
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        let ok = withUnsafeMutablePointer(to: &iter) { iterPointer in
            values.allSatisfy { append($0, to: iterPointer) }
        }
        if !ok { throw .noMemory() }
    }

    /// Reads the whole body of a message.
    /// The body's values, or only its first `count` (what is not read is neither decoded nor
    /// held: its descriptors close with the message).
    static func readBody(of message: OpaquePointer, first count: Int = .max) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return withUnsafeMutablePointer(to: &iter) { readAll($0, first: count) }
    }

    // MARK: writing

    private static func appendBasic<T: BitwiseCopyable>(
        _ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: UInt8, _ value: T
    ) -> Bool {
        var copy = value
        return dbus_message_iter_append_basic(iter, Int32(code), &copy) != 0
    }

    private static func appendString(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: UInt8, _ text: String)
        -> Bool
    {
        text.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(iter, Int32(code), &pointer) != 0
        }
    }

    private static func withContainer(
        _ iter: UnsafeMutablePointer<DBusMessageIter>, _ code: UInt8, _ contained: String?,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        return withUnsafeMutablePointer(to: &sub) { subPointer in
            let opened: Bool
            if let contained {
                opened = contained.withCString {
                    dbus_message_iter_open_container(iter, Int32(code), $0, subPointer) != 0
                }
            } else {
                opened = dbus_message_iter_open_container(iter, Int32(code), nil, subPointer) != 0
            }
            guard opened else { return false }
            guard body(subPointer) else {
                dbus_message_iter_abandon_container(iter, subPointer)
                return false
            }
            return dbus_message_iter_close_container(iter, subPointer) != 0
        }
    }

    private static func append(_ value: DBusValue, to iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        switch value {
        case .byte(let v): return appendBasic(iter, TypeCode.byte, v)
        case .bool(let v): return appendBasic(iter, TypeCode.boolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): return appendBasic(iter, TypeCode.int16, v)
        case .uint16(let v): return appendBasic(iter, TypeCode.uint16, v)
        case .int32(let v): return appendBasic(iter, TypeCode.int32, v)
        case .uint32(let v): return appendBasic(iter, TypeCode.uint32, v)
        case .int64(let v): return appendBasic(iter, TypeCode.int64, v)
        case .uint64(let v): return appendBasic(iter, TypeCode.uint64, v)
        case .double(let v): return appendBasic(iter, TypeCode.double, v)
        case .unixFD(let v): return appendBasic(iter, TypeCode.unixFD, v)
        case .string(let v): return appendString(iter, TypeCode.string, v)
        case .objectPath(let v): return appendString(iter, TypeCode.objectPath, v.rawValue)
        case .signature(let v): return appendString(iter, TypeCode.signature, v.rawValue)
        case .array(let element, let items):
            return withContainer(iter, TypeCode.array, element.rawValue) { sub in
                if element.rawValue == "y" { return appendBytes(items, to: sub) }
                return items.allSatisfy { append($0, to: sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            return withContainer(iter, TypeCode.array, "{\(key.rawValue)\(valueType.rawValue)}") { sub in
                entries.allSatisfy { entry in
                    withContainer(sub, TypeCode.dictEntryType, nil) { entryIter in
                        append(entry.key, to: entryIter) && append(entry.value, to: entryIter)
                    }
                }
            }
        case .structure(let fields):
            return withContainer(iter, TypeCode.structType, nil) { sub in fields.allSatisfy { append($0, to: sub) } }
        case .variant(let inner):
            return withContainer(iter, TypeCode.variant, inner.signature.rawValue) { sub in append(inner, to: sub) }
        }
    }

    /// `ay` in one copy rather than one call per byte.
    private static func appendBytes(_ items: [DBusValue], to iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        let bytes = items.map { $0.byte ?? 0 }
        return bytes.withUnsafeBufferPointer { buffer in
            var base = buffer.baseAddress
            return dbus_message_iter_append_fixed_array(iter, Int32(TypeCode.byte), &base, Int32(buffer.count)) != 0
        }
    }

    // MARK: reading

    private static func readAll(_ iter: UnsafeMutablePointer<DBusMessageIter>, first count: Int = .max) -> [DBusValue] {
        var values: [DBusValue] = []
        while values.count < count, dbus_message_iter_get_arg_type(iter) != 0 {
            values.append(read(iter))
            dbus_message_iter_next(iter)
        }
        return values
    }

    private static func readBasic<T: BitwiseCopyable>(_ iter: UnsafeMutablePointer<DBusMessageIter>, _ zero: T) -> T {
        var value = zero
        dbus_message_iter_get_basic(iter, &value)
        return value
    }

    private static func readString(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func currentSignature(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> String {
        guard let raw = dbus_message_iter_get_signature(iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    private static func withSubIterator<T>(
        _ iter: UnsafeMutablePointer<DBusMessageIter>, _ body: (UnsafeMutablePointer<DBusMessageIter>) -> T
    ) -> T {
        var sub = DBusMessageIter()
        return withUnsafeMutablePointer(to: &sub) { subPointer in
            dbus_message_iter_recurse(iter, subPointer)
            return body(subPointer)
        }
    }

    private static func read(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> DBusValue {
        let code = UInt8(truncatingIfNeeded: dbus_message_iter_get_arg_type(iter))
        switch code {
        case TypeCode.byte: return .byte(readBasic(iter, UInt8(0)))
        case TypeCode.boolean: return .bool(readBasic(iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(readBasic(iter, Int16(0)))
        case TypeCode.uint16: return .uint16(readBasic(iter, UInt16(0)))
        case TypeCode.int32: return .int32(readBasic(iter, Int32(0)))
        case TypeCode.uint32: return .uint32(readBasic(iter, UInt32(0)))
        case TypeCode.int64: return .int64(readBasic(iter, Int64(0)))
        case TypeCode.uint64: return .uint64(readBasic(iter, UInt64(0)))
        case TypeCode.double: return .double(readBasic(iter, Double(0)))
        case TypeCode.unixFD: return .unixFD(readBasic(iter, Int32(-1)))
        case TypeCode.string: return .string(readString(iter))
        case TypeCode.objectPath: return .objectPath(ObjectPath(unchecked: readString(iter)))
        case TypeCode.signature: return .signature(Signature(unchecked: readString(iter)))
        case TypeCode.variant: return .variant(withSubIterator(iter) { read($0) })
        case TypeCode.structType: return .structure(withSubIterator(iter) { readAll($0) })
        case TypeCode.array: return readArray(iter)
        default: return .string("")  // libdbus validated the message; no other code can occur
        }
    }

    private static func readArray(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> DBusValue {
        let element = String(currentSignature(iter).dropFirst())
        if element.hasPrefix("{") {
            let inner = Signature(unchecked: String(element.dropFirst().dropLast()))
            let parts = inner.completeTypes
            let entries = withSubIterator(iter) { sub in
                var entries: [DBusValue.DictEntry] = []
                while dbus_message_iter_get_arg_type(sub) != 0 {
                    let pair = withSubIterator(sub) { readAll($0) }
                    entries.append(.init(pair[0], pair[1]))
                    dbus_message_iter_next(sub)
                }
                return entries
            }
            return .dictionary(key: parts[0], value: parts[1], entries)
        }
        if element == "y" {
            return .array(
                element: "y",
                withSubIterator(iter) { sub in
                    var base: UnsafeRawPointer? = nil
                    var count: Int32 = 0
                    dbus_message_iter_get_fixed_array(sub, &base, &count)
                    guard let base, count > 0 else { return [] }
                    let bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: Int(count))
                    return bytes.map(DBusValue.byte)
                })
        }
        return .array(element: Signature(unchecked: element), withSubIterator(iter) { readAll($0) })
    }
}
