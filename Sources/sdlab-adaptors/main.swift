import Foundation

// sdlab-adaptors OUTPUT SOURCE...: writes to OUTPUT, for each type the sources give
// `@UIApplicationDelegateAdaptor` (`@UIApplicationDelegateAdaptor(AppDelegate.self) var …` or
// `@UIApplicationDelegateAdaptor var …: AppDelegate`), the adaptor's initializers made for that
// type. Run by the AppDelegateAdaptors build plugin.

/// The delegate types `source` gives the adaptor, in the two forms SwiftUI takes, outside
/// comments (a type named only in a comment may not exist).
func delegateTypes(in source: String) -> [String] {
    let code = source.replacingOccurrences(of: #"//[^\n]*|/\*[\s\S]*?\*/"#, with: "", options: .regularExpression)
    let typeName = #"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"#
    let patterns = [
        #"@UIApplicationDelegateAdaptor\s*\(\s*"# + typeName + #"\.self"#,
        #"@UIApplicationDelegateAdaptor\s+(?:(?:private|fileprivate|internal|public|@\w+)\s+)*var\s+\w+\s*:\s*"#
            + typeName,
    ]
    return patterns.flatMap { pattern -> [String] in
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let whole = NSRange(code.startIndex..., in: code)
        return regex.matches(in: code, range: whole).compactMap { match in
            Range(match.range(at: 1), in: code).map { String(code[$0]) }
        }
    }
}

func adaptorInitializers(for type: String) -> String {
    """

    extension UIApplicationDelegateAdaptor where DelegateType == \(type) {
        @MainActor init(_ delegateType: \(type).Type) { self.init(makingWith: { \(type)() }) }
        @MainActor init() { self.init(makingWith: { \(type)() }) }
    }

    """
}

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: sdlab-adaptors OUTPUT SOURCE...\n".utf8))
    exit(2)
}
var types: [String] = []
for path in arguments.dropFirst() {
    guard let source = try? String(contentsOfFile: path, encoding: .utf8) else {
        FileHandle.standardError.write(Data("sdlab-adaptors: cannot read \(path)\n".utf8))
        exit(1)
    }
    for type in delegateTypes(in: source) where !types.contains(type) { types.append(type) }
}
var text = "// Written at build time by SharedDeviceLab's AppDelegateAdaptors plugin: how each app\n"
text += "// delegate given to @UIApplicationDelegateAdaptor is made (Docs/your-app.md).\n"
if !types.isEmpty { text += "import SwiftUI\n" + types.map(adaptorInitializers).joined() }
do {
    try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("sdlab-adaptors: cannot write \(output): \(error.localizedDescription)\n".utf8))
    exit(1)
}
