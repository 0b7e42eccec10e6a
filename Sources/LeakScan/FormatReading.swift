/// What a format's reader got out of one buffer, read as the format's own library reads it: each
/// value with how it was read, and what it could not read. The scanner searches every value
/// again, through every decoding and format, to any depth (`CanaryReader`).
struct FormatReading {
    /// A value read out of the buffer: a table's cell, a property list's string, an archive's
    /// entry, a MIME part. `label` says how, as `LeakScanner.Finding.via` shows it:
    /// `sqlite:notes.body`, `plist`, `tar:notes/1.txt`, `mime:part 2 (text/plain; utf-16)`.
    struct Value {
        var label: String
        var bytes: [UInt8]
    }

    var values: [Value] = []
    /// What could not be read, one line each, naming where: the scan that meets one is
    /// incomplete (`a zip entry notes.txt is encrypted`).
    var problems: [String] = []
    /// The values stopped at the bytes the reader was allowed to produce: more was there.
    var stopped = false

    /// Bytes produced, all values together.
    var byteCount: Int { values.reduce(0) { $0 + $1.bytes.count } }

    mutating func add(_ label: String, _ bytes: [UInt8]) { values.append(Value(label: label, bytes: bytes)) }
}

/// A budget's size as the scan names it: `256 MiB`, `4 GiB`, or bytes below a mebibyte.
func sizeText(_ bytes: Int) -> String {
    if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
    return bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
}
