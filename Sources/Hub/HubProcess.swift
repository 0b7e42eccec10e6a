import DBusKit
import DeviceContract
import DeviceProcesses
import FoundationEssentials
import HubFiles
import SharedDevice

/// The hub process: serves the device contract on `dev.sdlab.Hub` until asked to stop.
public enum HubProcess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The saved state if there is one (a restart after a crash), else a new device from
    /// `setup`, saved at once so a restart finds the same users.
    public static func loadState(from store: StateFile?, setup: () throws -> HubSetup) throws -> HubState {
        if let saved = try store?.load() { return saved }
        let setup = try setup()
        let state = HubState(directory: setup.directory, model: HubModel(policy: setup.policy, online: setup.online))
        try store?.save(state)
        return state
    }

    /// Exports the hub object, records its unique name in `nameFile` if given, then takes the
    /// well-known name (in that order, so no caller ever finds a name without the object).
    /// Another process holding the well-known name (it took it after a crash) stops the hub
    /// unless its name is recorded: clients given `nameFile` never ask that process, so the hub
    /// serves them and returns what to warn of.
    @discardableResult
    public static func serve(
        _ state: HubState, savingTo store: StateFile?, trace: TraceLog? = nil,
        on connection: Connection, recordingNameIn nameFile: String? = nil, crashFile: String? = nil
    ) async throws -> String? {
        let core = HubCore(state, store: store, trace: trace, crashFile: crashFile)
        try await watchDepartures(on: connection, core)
        let service = HubService(core)
        try connection.export(service.interfaces, at: DeviceBus.hubPath)
        if let nameFile {
            do {
                try AtomicFile.write(Data((connection.uniqueName + "\n").utf8), to: nameFile)
            } catch {
                throw Failure(description: "cannot record the hub's bus name: \(error)")
            }
        }
        guard try await connection.requestName(DeviceBus.hubName) == .primaryOwner else {
            let holder = await holder(of: DeviceBus.hubName, on: connection)
            let held = "another process\(holder) holds \(DeviceBus.hubName)"
            guard nameFile != nil else { throw Failure(description: held) }
            return held + "; clients that read \(nameFile!) reach this hub as \(connection.uniqueName)"
        }
        return nil
    }

    /// From before the hub object is exported, for as long as the connection lasts: a client
    /// that leaves the bus (it exited, crashed or was killed) releases its notify registrations
    /// (Docs/behaviour.md §3). The bus says so with `NameOwnerChanged(name, old, "")`; the
    /// handler runs on the connection's thread, in order with `Register` and `Cancel`.
    private static func watchDepartures(on connection: Connection, _ core: HubCore) async throws {
        let departures = MatchRule(
            sender: Connection.busName, path: Connection.busPath, interface: Connection.busName,
            member: "NameOwnerChanged", arguments: [2: ""])
        _ = try await connection.onSignal(matching: departures) { message in
            guard let name = message.body.first?.string, name.hasPrefix(":") else { return }
            _ = try? core.change { $0.releaseNotify(heldBy: name) }
        }
    }

    /// ` (PID N)` for the owner of `name`, or nothing when the bus does not say.
    private static func holder(of name: String, on connection: Connection) async -> String {
        guard let owner = try? await connection.nameOwner(name), let pid = try? await connection.processID(of: owner)
        else { return "" }
        return " (PID \(pid))"
    }
}
