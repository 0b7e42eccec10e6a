import ArgumentParser
import DBusKit
import DeviceProcesses
import Foundation
import SharedDevice

/// Prints `sdlab: message` on stderr and gives the exit code to throw.
func failure(_ message: String, code: Int32) -> ExitCode {
    FileHandle.standardError.write(Data("sdlab: \(message)\n".utf8))
    return ExitCode(code)
}

/// Progress and notes for a person, on stderr, so stdout stays parseable.
func note(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// Writes to stdout at once, even when it is a pipe (a parent may be waiting for the line).
func emitLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Which device bus a command talks to.
struct BusOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The device bus address, as printed by `sdlab device up`.",
        discussion: "Defaults to $DBUS_SESSION_BUS_ADDRESS.", valueName: "address"))
    var bus: String?

    func address() throws -> String {
        guard let address = bus ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            throw failure("no device bus: pass --bus or set DBUS_SESSION_BUS_ADDRESS as `sdlab device up` prints it",
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

/// Awaits `work`, cancelling it when a termination signal arrives (`TerminationSignals.install()`
/// first): what it started is still stopped on its way out.
func cancellingOnTermination<T: Sendable, F: Error>(_ work: Task<T, F>) async throws(F) -> T {
    let watcher = Task {
        _ = await TerminationSignals.next()
        work.cancel()
    }
    defer { watcher.cancel() }
    return try await work.result.get()
}
