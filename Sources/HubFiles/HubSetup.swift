import DeviceProcesses
import Foundation
import SharedDevice

/// What a new hub starts from: the scenario's `device` settings and the console's users
/// (hashed). Written by whoever starts the hub; read once, when there is no state yet.
public struct HubSetup: Codable, Equatable, Sendable {
    public var policy: HubModel.Policy
    public var online: Bool
    public var directory: ConsoleDirectory

    public init(policy: HubModel.Policy = .init(), online: Bool = true, directory: ConsoleDirectory = .defaults()) {
        self.policy = policy
        self.online = online
        self.directory = directory
    }

    public func write(to path: String) throws {
        try AtomicFile.write(JSONEncoder.sorted.encode(self), to: path)
    }

    public static func read(from path: String) throws(StateFileError) -> HubSetup {
        try StateFile.decode(HubSetup.self, from: path, what: "hub setup")
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
