/// Text from a scenario, an app or the system as a terminal or a report shows it: every control
/// character (C0, DEL, C1) and line or paragraph separator written as its escape (`\u{1B}`,
/// `\r`), so that a scenario name or an app's error cannot move the cursor, recolour, rewrite
/// or forge the lines around it.
public enum VisibleText {
    /// `text` with its control characters escaped; with `keepingLineBreaks`, `\n` stays a line
    /// break (a message of several lines), else it is escaped too (one line).
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }) else {
            return text
        }
        var result = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingLineBreaks: keepingLineBreaks) {
                result += scalar.escaped(asASCII: true)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
        if scalar == "\n" { return !keepingLineBreaks }
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
