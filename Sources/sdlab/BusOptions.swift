import ArgumentParser
import DBusKit
import DeviceContract
import Foundation

/// Which device bus a command talks to.
struct BusOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The device bus address, as printed by `sdlab device up`.",
            discussion: "Defaults to $DBUS_SESSION_BUS_ADDRESS.", valueName: "address"))
    var bus: String?

    func address() throws -> String {
        guard let address = bus ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty
        else {
            throw failure(
                "no device bus: pass --bus or set DBUS_SESSION_BUS_ADDRESS as `sdlab device up` prints it",
                code: ExitCodes.usage)
        }
        return address
    }

    func connect() async throws -> Connection {
        let address = try address()
        do {
            return try await Connection.connect(to: address)
        } catch {
            throw failure("cannot reach the device bus at \(address): \(error)", code: ExitCodes.environment)
        }
    }
}

/// Runs a call to the hub; a D-Bus error reply becomes exit code 1 with its name.
func callingHub<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as DBusError {
        throw failure(error.description, code: ExitCodes.failed)
    }
}
