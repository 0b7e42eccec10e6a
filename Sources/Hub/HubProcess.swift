import DBusKit
import DeviceContract
import DeviceProcesses
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

    /// Exports the hub object, then takes the well-known name (in that order, so no caller
    /// ever finds the name without the object).
    public static func serve(
        _ state: HubState, savingTo store: StateFile?, trace: TraceLog? = nil,
        on connection: Connection
    ) async throws {
        let service = HubService(HubCore(state, store: store, trace: trace))
        try connection.export(service.interfaces, at: DeviceBus.hubPath)
        guard try await connection.requestName(DeviceBus.hubName) == .primaryOwner else {
            throw Failure(description: "another process already owns \(DeviceBus.hubName)")
        }
    }
}
