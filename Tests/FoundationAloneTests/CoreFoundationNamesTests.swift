import Foundation
import Testing

/// Docs/your-app.md lists exactly the CoreFoundation names a file importing Foundation sees: each
/// one the module declares is listed, and each listed one is declared.
struct CoreFoundationNamesTests {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The top-level public names of the module's CF files.
    static func declared() throws -> Set<String> {
        let files = ["CFNames.swift", "DarwinNotifyCenter.swift"].map {
            checkout.appendingPathComponent("Sources/CoreFoundationDarwin/" + $0)
        }
        let declaration = try Regex(
            #"^(?:nonisolated\(unsafe\) )?public (?:final class|typealias|let|func|struct|enum) ([A-Za-z]+)"#
        ).anchorsMatchLineEndings()
        return try Set(
            files.flatMap { file in
                try String(contentsOf: file, encoding: .utf8).matches(of: declaration).map {
                    String($0.output[1].substring!)
                }
            })
    }

    /// The names in the docs' list: the bullets after "They are these, and no others".
    static func listed() throws -> Set<String> {
        let docs = try String(contentsOf: checkout.appendingPathComponent("Docs/your-app.md"), encoding: .utf8)
        let start = try #require(docs.range(of: "They are these, and no others"))
        let list = docs[start.upperBound...].components(separatedBy: "\n\n")[1]
        let name = try Regex("`([A-Za-z]+)`")
        return Set(list.matches(of: name).map { String($0.output[1].substring!) })
    }

    @Test func theDocsListExactlyTheNamesDeclared() throws {
        let declared = try Self.declared()
        let listed = try Self.listed()
        #expect(declared.count > 40)
        #expect(declared.subtracting(listed).sorted() == [], "declared, not listed")
        #expect(listed.subtracting(declared).sorted() == [], "listed, not declared")
    }
}
