import Foundation
import Testing

extension Tag {
    /// The test starts a device: a private dbus-daemon, and often the hub, app processes or
    /// `sdlab` on it. Seconds each, where the rest take milliseconds.
    @Tag public static var device: Self
}

extension Trait where Self == ConditionTrait {
    /// Leaves a `.device` test out when `SDLAB_SKIP_DEVICE_TESTS` is set, so the fast tests run
    /// alone: `swift test` selects by name (`--filter`, `--skip`), not by tag. Every test or
    /// suite tagged `.device` carries it too.
    public static var devicesWanted: Self {
        .disabled(
            if: ProcessInfo.processInfo.environment["SDLAB_SKIP_DEVICE_TESTS"] != nil,
            "SDLAB_SKIP_DEVICE_TESTS is set")
    }
}
