import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// One `sdlab device up` at a time starts a device in a folder: the other refuses at once and
/// leaves nothing running, and removes nothing of the winner's.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(2)))
struct DeviceLockTests {
    /// Before: often both failed, or one was up and `device down` then said "nothing was
    /// running" while its bus and hub lived on: the loser had removed the winner's PID records.
    @Test func twoDeviceUpAtOnceGiveOneDeviceThatDeviceDownStops() async throws {
        let parent = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-race")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let folder = parent + "/device"
        defer { Self.stopEverything(of: folder) }
        async let first = run(sdlabPath, ["device", "up", "--detach", "--dir", folder], timeout: .seconds(30))
        async let second = run(sdlabPath, ["device", "up", "--detach", "--dir", folder], timeout: .seconds(30))
        let both = try await [first, second]
        let winners = both.filter { $0.status == 0 }
        let losers = both.filter { $0.status == 3 }
        #expect(winners.count == 1 && losers.count == 1, "\(both.map { "\($0.status): \($0.stderr)" })")
        // Mostly the loser finds the winner starting; on a slow machine it may find it up already.
        let refusals = [
            "sdlab: another sdlab is starting a device in \(folder)\n",
            "sdlab: a device is already running in \(folder): `sdlab device down --dir \(folder)` stops it\n",
        ]
        for loser in losers {
            #expect(refusals.contains { loser.stderr.hasSuffix($0) }, "\(loser.stderr)")
        }
        let down = try await run(sdlabPath, ["device", "down", "--dir", folder])
        #expect(down.status == 0 && down.stderr.contains("stopped the hub and the bus in \(folder)"), "\(down.stderr)")
        try await eventually("nothing of the device is alive") {
            await offPool { LiveProcesses.ofRunFolder(folder).isEmpty }
        }
    }

    /// The refusal of a `device up` that finds another starting a device there, made certain by
    /// holding the folder's lock as that other would.
    @Test func aDeviceUpWhileAnotherStartsOneThereRefusesAndStartsNothing() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-locked")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        defer { Self.stopEverything(of: folder) }
        let lock = try #require(try FileLock.take(RunFolder.lock(in: folder)))
        defer { lock.release() }
        let refused = try await run(sdlabPath, ["device", "up", "--detach", "--dir", folder])
        #expect(refused.status == 3)
        #expect(refused.stderr == "sdlab: another sdlab is starting a device in \(folder)\n")
        #expect(LiveProcesses.ofRunFolder(folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: RunFolder.busPID(in: folder)), "nothing was started")
    }

    /// On the way out, whatever still runs of the device, by PID.
    static func stopEverything(of folder: String) {
        for pid in LiveProcesses.ofRunFolder(folder) { ChildProcess(pid: pid).stop(grace: .seconds(1)) }
    }
}
