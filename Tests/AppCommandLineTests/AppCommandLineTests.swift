import DeviceContract
import SharedDevice
import Testing

@testable import AppCommandLine

/// The runner writes an app's options (`AppOptions.arguments`) and the app reads them back
/// (`AppArguments`): what one side writes, the other reads as it was.
@Suite struct AppCommandLineTests {
    @Test(arguments: [
        CleanupPolicy.wipeAll, .retainPreferences, .keepAll, .own(), .own(keeps: [.common]),
        .hook(command: "rm -rf \"$SDLAB_CONTAINER/caches\"; exit 0", keeps: [.common, .preferences]),
    ])
    func theRunnersCommandLineParsesBackToTheSameOptions(policy: CleanupPolicy) throws {
        let hook = if case .hook = policy { true } else { false }
        let written = AppOptions(
            name: "mail", sdk: .msalAndroid, backgroundMode: true, backgroundTask: true,
            backgroundTime: BackgroundTime(grace: .zero, task: .milliseconds(1500)), policy: policy,
            hookDirectory: hook ? "/tmp/my scenarios" : nil, hookTimeout: .milliseconds(250), container: "/tmp/c",
            trace: "/tmp/t.jsonl", bus: "unix:path=/tmp/bus", hubNameFile: "/tmp/hub-name", tracedPostsPerSecond: 0)
        let read = try AppArguments.parse(written.arguments).options
        #expect(read == written)
        #expect(read.arguments == written.arguments)
        #expect(AppOptionValues(runnersForm: written.arguments)?.options == written)
    }

    @Test func theDefaultsParseBackToo() throws {
        let written = AppOptions(name: "mail", sdk: .ws1, container: "/tmp/c")
        let read = try AppArguments.parse(written.arguments).options
        #expect(read == written)
        #expect(read.hookTimeout == .seconds(10) && read.policy == .wipeAll && read.tracedPostsPerSecond == nil)
        #expect(read.backgroundTime == .iOS)
        #expect(AppOptionValues(runnersForm: written.arguments)?.options == written)
    }

    /// What the runner's form cannot say goes to ArgumentParser, for its help or its error; what
    /// it reads, it reads as ArgumentParser does, and it checks the same rules.
    @Test(arguments: [
        ["--help"], ["--name=mail", "--sdk", "ws1", "--container", "/c"],
        ["--name", "mail", "--sdk", "ws1"], ["--name", "mail", "--sdk", "ws1", "--container", "/c", "--colour", "red"],
        ["--name", "mail", "--name", "other", "--sdk", "ws1", "--container", "/c"],
        ["--name", "mail", "--sdk", "ios", "--container", "/c"],
        ["--name", "mail", "--sdk", "ws1", "--container", "-c"],
        ["--name", "mail", "--sdk", "ws1", "--container", "/c", "--hook-timeout", "10"],
        ["--name", "mail", "--sdk", "ws1", "--container", "/c", "--ready-fd", "three"],
        ["--name", "mail", "--sdk", "ws1", "--container", "/c", "--trace"],
    ])
    func otherCommandLinesAreLeftToArgumentParser(arguments: [String]) {
        #expect(AppOptionValues(runnersForm: arguments) == nil)
    }

    @Test(arguments: [
        ["--name", "9mail", "--sdk", "ws1", "--container", "/c"],
        ["--name", "mail", "--sdk", "ws1", "--container", "/c", "--ready-fd", "2"],
        ["--name", "mail", "--sdk", "ws1", "--container", "/c", "--cleanup", "tidy"],
        ["--name", "mail", "--sdk", "ws1", "--container", "/c", "--keeps", "common"],
        ["--name", "mail", "--sdk", "ws1", "--container", "/c", "--hook", "true", "--keeps", "plain"],
    ])
    func theSameRulesRefuseTheSameLines(arguments: [String]) throws {
        let values = try #require(AppOptionValues(runnersForm: arguments))
        let problem = try #require(values.problem)
        do {
            _ = try AppArguments.parse(arguments)
            Issue.record("ArgumentParser took \(arguments)")
        } catch {
            #expect(AppArguments.message(for: error) == problem)
        }
    }

    @Test func everyOptionTheRunnerWritesIsOneTheAppReads() {
        let help = AppArguments.helpMessage(columns: 1000)
        for option in AppOptions.Option.allCases { #expect(help.contains(option.flag + " "), "\(option.flag)") }
    }

    @Test func declaredKeepsAreOnlyForAHookOrTheAppsOwnCode() {
        #expect(throws: (any Error).self) {
            try AppArguments.parse(["--name", "a", "--sdk", "ws1", "--container", "/c", "--keeps", "common"])
        }
        #expect(throws: (any Error).self) {
            try AppArguments.parse([
                "--name", "a", "--sdk", "ws1", "--container", "/c", "--cleanup", "own", "--keeps", "plain",
            ])
        }
        #expect(throws: (any Error).self) {
            try AppArguments.parse(["--name", "a", "--sdk", "ws1", "--container", "/c", "--hook-timeout", "10"])
        }
    }
}
