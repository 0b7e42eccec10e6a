/// One record of the kernel's audit as it reaches a reader:
/// `audit(SECONDS.MILLIS:SERIAL): key=value key="quoted" …`. Records with one serial are one event
/// (a Landlock refusal, then the system call that met it, then its end).
struct AuditRecord: Equatable, Sendable {
    /// The record types this runner reads (linux/audit.h).
    enum Kind: Int32, Sendable {
        case syscall = 1300
        case endOfEvent = 1320
        case user = 1005
        case landlockAccess = 1423
        case landlockDomain = 1424
    }

    let kind: Kind
    let serial: UInt64
    /// Each field's value, a quoted or hex-encoded string decoded.
    let fields: [String: String]
    /// A user record's text as it was logged (`msg='…'`).
    let message: String?

    /// Fields the kernel writes as untrusted strings: quoted, or in hex when they hold a space,
    /// a quote or a control character.
    private static let untrusted: Set<String> = ["path", "comm", "exe", "name", "ocomm"]

    init?(type: Int32, text: String) {
        guard let kind = Kind(rawValue: type), text.hasPrefix("audit("),
            let colon = text.firstIndex(of: ":"), let close = text.firstIndex(of: ")"), colon < close,
            let serial = UInt64(text[text.index(after: colon)..<close])
        else { return nil }
        self.kind = kind
        self.serial = serial
        let body = text[text.index(after: close)...].drop { $0 == ":" || $0 == " " }
        if kind == .user, let start = body.range(of: "msg='") {
            message = String(body[start.upperBound...].prefix { $0 != "'" })
            fields = [:]
            return
        }
        message = nil
        fields = Self.fields(of: body)
    }

    private static func fields(of body: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = body[...]
        while let equals = rest.firstIndex(of: "=") {
            let key = String(rest[..<equals].drop { $0 == " " })
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let afterQuote = rest.dropFirst()
                let end = afterQuote.firstIndex(of: "\"") ?? afterQuote.endIndex
                value = afterQuote[..<end]
                rest = end < afterQuote.endIndex ? afterQuote[afterQuote.index(after: end)...] : afterQuote[end...]
            } else {
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
                if untrusted.contains(key), let decoded = hexDecoded(value) {
                    fields[key] = decoded
                    continue
                }
            }
            fields[key] = String(value)
        }
        return fields
    }

    /// `value` as the bytes its hex digits spell, or nil when it is not hex (`(null)`, `?`).
    private static func hexDecoded(_ value: Substring) -> String? {
        let digits = Array(value.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[pair]), let low = hexValue(digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A refusal of the kernel's Landlock, put together from its records: which domain refused what
/// where, and, once the system call's record came, which call and which process met it.
struct LandlockRefusal: Equatable, Sendable {
    let domain: String
    /// Landlock's names for what it refused (`fs.make_reg`, `fs.write_file`, `scope.abstract_unix_socket`).
    let blockers: [String]
    /// Where: the file, or for something made or removed, the folder it would be in.
    let path: String?
    var syscall: Int32?
    var pid: Int32?
    var command: String?
    /// The process that made the domain: the fence, which became the app.
    var owner: Int32?
}

/// Reads the kernel's audit records in the order they came and gives the Landlock refusals they
/// tell of, each once its event is whole.
struct LandlockRefusalReading: Sendable {
    private var owners: [String: Int32] = [:]
    private var pending: [UInt64: [LandlockRefusal]] = [:]

    /// The refusals `record` completes.
    mutating func read(_ record: AuditRecord) -> [LandlockRefusal] {
        switch record.kind {
        case .landlockDomain:
            if record.fields["status"] == "allocated", let domain = record.fields["domain"],
                let pid = record.fields["pid"].flatMap(Int32.init)
            {
                owners[domain] = pid
            }
        case .landlockAccess:
            guard let domain = record.fields["domain"] else { return [] }
            let blockers = (record.fields["blockers"] ?? "").split(separator: ",").map(String.init)
            pending[record.serial, default: []].append(
                LandlockRefusal(domain: domain, blockers: blockers, path: record.fields["path"]))
        case .syscall:
            guard var refusals = pending[record.serial] else { return [] }
            for index in refusals.indices {
                refusals[index].syscall = record.fields["syscall"].flatMap(Int32.init)
                refusals[index].pid = record.fields["pid"].flatMap(Int32.init)
                refusals[index].command = record.fields["comm"]
            }
            pending[record.serial] = refusals
        case .endOfEvent:
            return complete(pending.removeValue(forKey: record.serial) ?? [])
        case .user:
            break
        }
        return []
    }

    /// Every refusal still waiting for the rest of its event (a barrier came: whatever was
    /// logged before it is here).
    mutating func flush() -> [LandlockRefusal] {
        let all = pending.keys.sorted().flatMap { pending[$0] ?? [] }
        pending = [:]
        return complete(all)
    }

    private func complete(_ refusals: [LandlockRefusal]) -> [LandlockRefusal] {
        refusals.map { refusal in
            var owned = refusal
            owned.owner = owners[refusal.domain]
            return owned
        }
    }
}
