/// An app's name becomes one element of a D-Bus name (`dev.sdlab.App.NAME`) and a file name:
/// ASCII letters, digits and `_`, not starting with a digit, at most 200 bytes.
public enum AppName {
    public static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !isDigit(first), name.utf8.count <= 200 else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || isDigit($0) || $0 == "_") }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
}
