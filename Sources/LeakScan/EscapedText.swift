import SharedDevice

/// Text in JSON strings whose slashes the encoder escaped (Foundation's JSONEncoder does by
/// default): `SDLAB-CANARY\/cou1\/…`.
enum EscapedText {
    static let marker = Array("SDLAB-CANARY\\/".utf8)

    /// The canaries in the escaped text whose `marker` is at `start`.
    static func canaries(at start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [Canary] {
        Canary.all(inUTF8: unescaped(from: start, in: bytes))
    }

    /// The text from `start` with `\/` read as `/`, up to the first byte no canary holds.
    static func unescaped(from start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var text: [UInt8] = []
        var index = start
        while index < bytes.count, text.count < WideText.longest {
            if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                text.append(UInt8(ascii: "/"))
                index += 2
                continue
            }
            guard isNameByte(bytes[index]) else { break }
            text.append(bytes[index])
            index += 1
        }
        return text
    }

    /// What names, kinds and numbers are made of.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}
