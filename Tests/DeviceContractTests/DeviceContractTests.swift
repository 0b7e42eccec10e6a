import DBusKit
import DeviceContract
import Foundation
import Scenario
import SharedDevice
import TestSupport
import Testing

/// What every process agrees on, written by one side and read by the other.
@Suite(.ownThread) struct DeviceContractTests {
    @Test func wireShapesReadBackAsWritten() {
        let session = Session(state: .checkedOut, user: "cou1", generation: 7)
        #expect(Session(wire: session.wireValue) == session)
        #expect(Session(wire: Session(state: .checkedIn, user: nil, generation: 2).wireValue)?.user == nil)
        #expect(Session(wire: .structure([.string("nonsense"), .string(""), .uint64(1)])) == nil)
        let account = BrokerAccount(user: "cou2")
        #expect(BrokerAccount(wire: account.wireValue) == account)
        let key = UserKey(user: "cou1", key: Array(repeating: 9, count: 32))
        #expect(UserKey(wire: key.wireValue) == key)
        #expect(UserKey(wire: UserKey(user: "cou1", key: [1, 2]).wireValue) == nil, "a key is 32 bytes")
        let information = DeviceInformation(
            deviceMode: "shared", generation: 3, passcodePolicy: true, passcodeSet: false)
        #expect(DeviceInformation(wire: information.wireValue) == information)
        var snapshot = AppSnapshot()
        snapshot.name = "mail"
        snapshot.user = "cou1"
        snapshot.callbacks = ["current-account(cou1,none)"]
        snapshot.displayed = ["SDLAB-CANARY/cou2/mail/plain/1"]
        snapshot.checks = 3
        #expect(AppSnapshot(wire: snapshot.wireValue) == snapshot)
        #expect(snapshot.exposed(currentUser: "cou1").map(\.user) == ["cou2"])
    }

    /// Before: the canaries went one by one, and past about 800,000 records the reply was over
    /// the bus's 32 MiB and the snapshot failed.
    @Test func aSnapshotSendsRunsOfCanariesAndReadsThemBackOneByOne() throws {
        var snapshot = AppSnapshot()
        let plain = (1...100_000).map { "SDLAB-CANARY/cou1/mail/plain/\($0)" }
        let sensitive = [1, 2, 3, 7, 9, 10].map { "SDLAB-CANARY/cou1/mail/sensitive/\($0)" }
        // Numbers a run could not give back as written stay items of their own.
        let unusual = ["not a canary", "SDLAB-CANARY/cou1/mail/plain/5", "x/06", "x/+7", "x/8"]
        snapshot.displayed = plain + sensitive + unusual
        let items = snapshot.wireValue.stringKeyed?["displayed"]?.variant?.items ?? []
        let wire = items.compactMap(\.string)
        let expected =
            [
                "SDLAB-CANARY/cou1/mail/plain/1..100000", "SDLAB-CANARY/cou1/mail/sensitive/1..3",
                "SDLAB-CANARY/cou1/mail/sensitive/7", "SDLAB-CANARY/cou1/mail/sensitive/9..10",
            ] + unusual
        // Compared outside #expect: a failing comparison of so many items would have it
        // compute their difference for a very long time.
        let sentAsRuns = wire == expected
        #expect(sentAsRuns, "sent as \(wire.count) items, the first \(wire.prefix(8))")
        let readBack = AppSnapshot(wire: snapshot.wireValue).displayed == snapshot.displayed
        #expect(readBack, "read back one by one")
    }

    @Test func errorsCarryTheirNamesOnTheBus() {
        #expect(DeviceError.offline.dbusError.name == "dev.sdlab.Error.Offline")
        #expect(DeviceError.blocked.dbusError.isDevice("Blocked") && !DeviceError.blocked.dbusError.isDevice("Offline"))
        #expect(DBusError.device("Locked").name == DeviceError.locked.name)
        #expect(DeviceError(DeviceError.locked.dbusError) == .locked)
        #expect(DeviceError(DBusError.device("NoSuchError")) == nil)
        #expect(DeviceError(DBusError(name: "org.example.Error.Offline", message: "")) == nil, "not the device's")
    }

    /// A writer that never closes (killed) leaves its lines and zeros after them; the next one
    /// appends after its lines, and a closed file holds its lines alone.
    @Test func aTraceFileOutlivesItsWriterAndIsAppendedTo() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let killed = try TraceLog(path: file, process: "mail")
        killed.record(.launched)
        killed.record(.ready)
        #expect(TraceEvent.events(in: file).map(\.name) == [.launched, .ready])
        #expect(
            (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0) > 1000, "space kept in reserve"
        )
        let next = try TraceLog(path: file, process: "mail")
        next.record(.launched)
        next.close()
        #expect(TraceEvent.events(in: file).map(\.name) == [.launched, .ready, .launched])
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasSuffix("}\n") && !text.contains("\0"), "closed: the lines alone")
    }

    @Test func everyEventATraceWritesIsReadBackByName() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let trace = try TraceLog(path: file, process: "mail")
        for name in TraceName.allCases {
            trace.record(name, [.user: .user(nil), .opportunity: false, .count: 3, .holds: "cou1/plain,cou2/common"])
        }
        let events = TraceEvent.events(in: file)
        #expect(events.map(\.name) == TraceName.allCases.map { $0 })
        #expect(
            events.allSatisfy {
                $0.proc == "mail" && $0.user() == nil && $0.bool(.opportunity) == false && $0.integer(.count) == 3
            })
        #expect(events.first?[.holds] == "cou1/plain,cou2/common")
    }

    @Test func everyKindOfValueReadsBackAsTheValueItWasWrittenAs() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let trace = try TraceLog(path: file, process: "quote\"d\nname")
        trace.record(.postReceived, at: 0, [.serial: .uint(.max), .count: .int(.min), .pid: .int(-42)])
        trace.record(.callback, at: 1_234_567_890, [.name: "tab\tand \\ and \u{1}", .error: .string("")])
        let events = TraceEvent.events(in: file)
        #expect(events.map(\.t) == [0, 1_234_567_890])
        #expect(events.allSatisfy { $0.proc == "quote\"d\nname" })
        #expect(events.first?.integer(.serial, as: UInt64.self) == .max)
        #expect(events.first?.integer(.count, as: Int64.self) == .min)
        #expect(events.first?.integer(.pid, as: Int32.self) == -42)
        #expect(events.first?[.serial] == "18446744073709551615", "as text, to show it")
        #expect(events.last?[.name] == "tab\tand \\ and \u{1}")
        #expect(events.last?[.error] == "")
        // A number that does not fit, or a field of another type, is no number; text is no flag.
        #expect(events.first?.integer(.pid, as: UInt32.self) == nil)
        #expect(events.first?.integer(.serial, as: Int64.self) == nil)
        #expect(events.last?.integer(.name) as Int? == nil && events.last?.bool(.name) == nil)
        // A line another writer made: a null is no field, a list stays a list, a fraction is left out.
        let foreign = TraceEvent(
            line: #"{"t":5,"proc":"x","event":"e","user":null,"keeps":["a","b"],"ok":true,"ratio":0.5}"#)
        #expect(foreign?.fields == ["keeps": .strings(["a", "b"]), "ok": true])
        #expect(foreign?[.keeps] == "a,b" && foreign?.user() == nil)
    }
}
