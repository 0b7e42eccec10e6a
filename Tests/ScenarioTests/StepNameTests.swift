import Foundation
import Scenario
import Testing

/// Each step is declared once (`StepName`); the reader, the writer and the step table of
/// Docs/scenarios.md agree with that declaration.
@Suite struct StepNameTests {
    static let scenariosDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Docs/scenarios.md").standardizedFileURL.path

    @Test(arguments: StepName.allCases) func aStepIsReadBackByItsKey(_ name: StepName) {
        #expect(StepName(key: name.key) == name)
    }

    @Test(arguments: StepName.allCases) func aStepStandsBareExactlyWhenItsDeclarationSaysSo(_ name: StepName) {
        let found = problems(head + "  - \(name.key)\n")
        if let bare = name.bare {
            #expect(found.isEmpty, "\(found)")
            #expect(parsed(head + "  - \(name.key)\n")?.steps.first?.kind == bare)
        } else {
            #expect(found == ["s.yaml:6:5: \(name.key) needs a value (\(name.key): …)"])
        }
    }

    @Test(arguments: StepName.allCases.filter { !$0.canFail && $0.bare != nil })
    func aStepThatCannotFailRefusesAnError(_ name: StepName) {
        let found = problems(head + "  - {\(name.key): null, error: NotCheckedOut}\n")
        #expect(found.contains { $0.contains("error: does not apply to \(name.key)") }, "\(found)")
    }

    @Test func hubCrashNamesTheStepsTheHubMayCrashIn() {
        let found = problems(head + "  - {lock: null, hub_crash: after-commit}\n")
        #expect(
            found.contains {
                $0.hasSuffix("(only to a change the runner asks of the hub: checkout, checkin, remove-account, wipe)")
            }, "\(found)")
    }

    /// Every step has a row of the table, and every row names steps there are.
    @Test func theDocsTableListsEveryStep() throws {
        let text = try String(contentsOfFile: Self.scenariosDoc, encoding: .utf8)
        let table = text.components(separatedBy: "| step | forms | what it does |")[1]
            .components(separatedBy: "\n\n")[0]
        let rows = table.split(separator: "\n").dropFirst().filter { !$0.hasPrefix("| (") }
        let documented = rows.flatMap { row in
            row.split(separator: "|")[0].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
        }
        #expect(documented == StepName.allCases.map(\.key))
    }
}
