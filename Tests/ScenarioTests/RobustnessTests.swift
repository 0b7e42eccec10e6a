import Faults
import Scenario
import TestSupport
import Testing

/// Whatever the bytes, parsing returns a scenario or problems with locations; it never traps.
@Suite(.ownThread) struct RobustnessTests {
    /// Characters that matter to YAML and to scenarios, so mutations reach past the YAML parser.
    static let yamlish = Array("-:{}[],&*!|>'\"#%@`?~ \n\n\t  abcxyz019_.()".utf8)

    /// Parses or throws problems that each carry a location; the test fails on anything else.
    static func check(_ bytes: [UInt8], _ what: String) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            _ = try Scenario.parse(text, file: "fuzz.yaml")
        } catch {
            #expect(!error.problems.isEmpty, "\(what)")
            for problem in error.problems {
                #expect(
                    problem.location.file == "fuzz.yaml" && problem.location.line >= 1 && problem.location.column >= 1,
                    "\(what): \(problem)")
            }
        }
    }

    @Test func randomBytes() {
        var random = SeededGenerator(state: 0x5D1A_B5EE_D000_0001)
        for index in 0..<200 {
            let length = Int.random(in: 0..<300, using: &random)
            let fromYAML = index.isMultiple(of: 2)
            let bytes = (0..<length).map { _ in
                fromYAML ? Self.yamlish.randomElement(using: &random) ?? 32 : UInt8.random(in: 0...255, using: &random)
            }
            Self.check(bytes, "random bytes #\(index)")
        }
    }

    @Test func truncationsOfTheExample() {
        var random = SeededGenerator(state: 0x5D1A_B5EE_D000_0002)
        let example = Array(specExample.utf8)
        for index in 0..<200 {
            Self.check(Array(example.prefix(Int.random(in: 0...example.count, using: &random))), "truncation #\(index)")
        }
    }

    @Test func mutationsOfTheExample() {
        var random = SeededGenerator(state: 0x5D1A_B5EE_D000_0003)
        let example = Array(specExample.utf8)
        for index in 0..<300 {
            var bytes = example
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = Self.yamlish.randomElement(using: &random) ?? 32
                case 1: bytes.remove(at: at)
                default: bytes.insert(Self.yamlish.randomElement(using: &random) ?? 32, at: at)
                }
            }
            Self.check(bytes, "mutation #\(index)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aliasesCannotMultiplyStepsWithoutBound() {
        let ten = { (name: String) in Array(repeating: name, count: 10).joined(separator: ", ") }
        var text = "steps:\n  - &s0 {repeat: {times: 1, steps: [\(ten("checkin"))]}}\n"
        for level in 1...7 {
            text += "  - &s\(level) {repeat: {times: 1, steps: [\(ten("*s\(level - 1)"))]}}\n"
        }
        let found = problems(text)
        #expect(found.count == 1 && found.first?.contains("too many steps") == true, "\(found)")
    }
}
