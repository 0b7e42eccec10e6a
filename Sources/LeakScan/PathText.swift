/// A path's bytes as text a person reads and nothing misreads: valid UTF-8 as it is, every
/// other byte, and control characters, as `\xNN`, and a backslash doubled, so that two names
/// never read alike (no replacement character stands for several bytes).
enum PathText {
    static func escaped(_ bytes: [UInt8]) -> String {
        // Most names: printable ASCII, as they are.
        if bytes.allSatisfy({ (0x20..<0x7F).contains($0) && $0 != 0x5C }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var text = ""
        var index = 0
        while index < bytes.count {
            var iterator = bytes[index...].makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    text += hex(UInt8(scalar.value))
                } else if scalar == "\\" {
                    text += "\\\\"
                } else {
                    text.unicodeScalars.append(scalar)
                }
                index += encoded.count
            case .error(let length):
                for byte in bytes[index..<index + length] { text += hex(byte) }
                index += length
            case .emptyInput:
                return text
            }
        }
        return text
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }
}
