import DBusKit
import DeviceContract
import Foundation
import SharedDevice
import TestSupport
import Testing

/// A flood of wrong passwords from a process on the device's bus (Docs/behaviour.md §1).
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(2)))
struct PasswordFloodTests {
    /// Before: every guess cost a scrypt hash (about 170 a second) and there was no limit, so a
    /// real check-out waited behind thousands of them.
    @Test func aFloodIsCheckedFiveTimesThenRefusedUncheckedAndOthersGoOn() async throws {
        try await AppDevice.with { lab in
            try await lab.hub(HubMethod.interface, "Enroll", ["stage", "stage"])
            let flooder = try await Connection.connect(to: lab.address)
            defer { Task { await flooder.close() } }
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for guess in 0..<200 {
                    group.addTask {
                        do {
                            try await flooder.callHub(HubMethod.checkOut, [.string("cou1"), .string("guess\(guess)")])
                            return "ok"
                        } catch let error as DBusError {
                            return String(error.shortName)
                        }
                    }
                }
                return try await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(answers == ["BadCredentials": 5, "LockedOut": 195], "only five guesses were hashed")

            // cou1 is locked out for a while, whoever asks; another user is not.
            let error = await #expect(throws: DBusError.self) {
                try await lab.hub(HubMethod.interface, "CheckOut", ["cou1", "cou1"])
            }
            #expect(error?.shortName == "LockedOut" && error?.message.contains("try again in") == true)
            try await lab.hub(HubMethod.interface, "CheckOut", ["cou2", "cou2"])
            #expect(try await lab.connection.session().user == "cou2")
        }
    }
}
