import DBusKit

/// The hub process: serves the device contract on `dev.sdlab.Hub` until asked to stop.
public enum HubProcess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Exports the hub object, then takes the well-known name (in that order, so no caller
    /// ever finds the name without the object).
    public static func serve(on connection: Connection) async throws {
        try connection.export(HubService().interfaces, at: DeviceBus.hubPath)
        guard try await connection.requestName(DeviceBus.hubName) == .primaryOwner else {
            throw Failure(description: "another process already owns \(DeviceBus.hubName)")
        }
    }
}
