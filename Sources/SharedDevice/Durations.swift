/// Durations as people write them in scenarios and on the command line: `250ms`, `5s`,
/// `1.5s`, `2m`: decimal digits, an optional fraction, a unit. A bare number is no duration
/// (`1500` could mean 1500 ms or 25 minutes), and neither is what a number parser would also
/// take (`0x10s`, `+5s`, `1e3ms`, `inf`).
public enum Durations {
    public static func parse(_ text: String) -> Duration? {
        let units: [(suffix: String, nanoseconds: Double)] = [
            ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9),
        ]
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        for unit in units.sorted(by: { $0.suffix.count > $1.suffix.count }) where trimmed.hasSuffix(unit.suffix) {
            return make(trimmed.dropLast(unit.suffix.count), unit.nanoseconds)
        }
        return nil
    }

    private static func make(_ number: Substring, _ scale: Double) -> Duration? {
        guard isDecimal(number), let value = Double(number), value * scale < 1e18 else { return nil }
        return .nanoseconds(Int64((value * scale).rounded()))
    }

    /// Digits, then optionally a point and more digits.
    private static func isDecimal(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }
    }
}
