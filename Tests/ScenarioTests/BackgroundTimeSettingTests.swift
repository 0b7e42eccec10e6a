import Scenario
import SharedDevice
import Testing

/// `device: {background_grace, background_task}` and an app's `background_task`
/// (Docs/scenarios.md, behaviour.md §7).
@Suite struct BackgroundTimeSettingTests {
    @Test(arguments: [
        ("", BackgroundTime.iOS),
        ("device: {background_grace: 0s}\n", BackgroundTime(grace: .zero, task: .seconds(30))),
        ("device: {background_task: 12s}\n", BackgroundTime(grace: .seconds(5), task: .seconds(12))),
        (
            "device: {background_grace: 1.5s, background_task: 0s}\n",
            BackgroundTime(grace: .milliseconds(1500), task: .zero)
        ),
        ("device: {background_grace: 10m}\n", BackgroundTime(grace: .seconds(600), task: .seconds(30))),
    ])
    func theDeviceSaysHowLongAnAppRunsInTheBackground(text: String, time: BackgroundTime) throws {
        let scenario = try #require(parsed("name: s\n" + text))
        #expect(scenario.device.backgroundTime == time)
        // Written back only when it differs from iOS's, and read back the same.
        #expect(scenario.yaml.contains("background_") == (time != .iOS))
        #expect(try Scenario.parse(scenario.yaml, file: "s.yaml").device == scenario.device)
    }

    @Test(arguments: [
        ("device: {background_grace: 11m}\n", "1:28: background_grace: at most 600s"),
        ("device: {background_task: 5}\n", "1:27: background_task: 5 needs a unit"),
        ("device: {background_grace: -1s}\n", "1:28: background_grace: bad duration '-1s'"),
        (
            "apps:\n  - {name: mail, sdk: msal, background: true, background_task: true}\n",
            "2:47: background_task: an app with background mode keeps running"
        ),
        (
            "apps:\n  - {name: mail, sdk: msal, background_task: true, executable: /opt/app, cleanup: own}\n",
            "2:29: background_task: an app with executable: begins its own background tasks"
        ),
        ("apps:\n  - {name: mail, sdk: msal, background_task: yes}\n", "2:46: background_task: expected true or false"),
    ])
    func aWrongSettingIsAProblemAtIt(text: String, problem: String) {
        let found = problems(text)
        #expect(found.contains { $0.contains(problem) }, "\(found)")
    }

    @Test func anAppMayHoldABackgroundTask() throws {
        let scenario = try #require(
            parsed(
                "apps:\n  - {name: notes, sdk: msal, background_task: true}\n  - {name: mail, sdk: msal, background_task: false}\n"
            ))
        #expect(scenario.apps.map(\.backgroundTask) == [true, false])
        #expect(scenario.yaml.contains("{name: notes, sdk: msal, background_task: true}"))
        #expect(try Scenario.parse(scenario.yaml, file: "s.yaml").apps.map(\.backgroundTask) == [true, false])
    }
}

/// `android_freeze_after` (Docs/scenarios.md): how long a cached Android app runs before it is
/// frozen; an Android app has no iOS background task.
@Suite struct AndroidFreezeSettingTests {
    @Test func itIsAndroidsTenSecondsUnlessTheDeviceSaysOtherwise() throws {
        let plain = try #require(parsed("name: x\n"))
        #expect(plain.device.androidFreezeAfter == .seconds(10))
        #expect(
            plain.device.backgroundTime(for: .msalAndroid) == BackgroundTime(grace: .seconds(10), task: .seconds(10)))
        let set = try #require(parsed("device: {android_freeze_after: 2s, background_grace: 1s}\n"))
        #expect(set.device.backgroundTime(for: .msalAndroid) == BackgroundTime(grace: .seconds(2), task: .seconds(2)))
        #expect(set.device.backgroundTime(for: .msal) == BackgroundTime(grace: .seconds(1), task: .seconds(30)))
    }

    @Test func anAndroidAppTakesNoBackgroundTask() {
        #expect(
            problems("apps:\n  - {name: scanner, sdk: msal-android, background_task: true}\n") == [
                "s.yaml:2:40: background_task: an Android app has no iOS background task (Android freezes it android_freeze_after it is cached)"
            ])
        #expect(
            problems("device: {android_freeze_after: 11m}\n") == [
                "s.yaml:1:32: android_freeze_after: at most 600s (iOS gives about 5s, 30s with a task; Android freezes a cached app after 10s)"
            ])
    }
}
