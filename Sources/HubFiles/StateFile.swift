import DeviceProcesses
import Foundation
import SharedDevice

#if canImport(Glibc)
    import Glibc
#endif

/// Everything the hub must remember across a crash: the console's users (hashed) and the
/// domain state.
public struct HubState: Codable, Equatable, Sendable {
    public var format = HubState.formatName
    public var version = HubState.currentVersion
    public var directory: ConsoleDirectory
    public var model: HubModel

    public init(directory: ConsoleDirectory, model: HubModel) {
        self.directory = directory
        self.model = model
    }

    static let formatName = "sdlab-hub-state"
    static let currentVersion = 1
}

public struct StateFileError: Error, CustomStringConvertible, Equatable {
    public let description: String
}

/// The hub's state file. Each save replaces it atomically (`AtomicFile`), so a SIGKILL at any moment leaves the old state or the new one.
/// Loading refuses, with the reason, a file this user does not own, one others may write,
/// a corrupt one and a foreign one: the state is never silently reset.
public struct StateFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The saved state, or nil when there is none yet.
    public func load() throws(StateFileError) -> HubState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let header = try Self.decode(Header.self, from: path, what: "hub state")
        guard header.format == HubState.formatName else {
            throw refusal("it is not a hub state file (format \(header.format.map { "\"\($0)\"" } ?? "missing"))")
        }
        guard header.version == HubState.currentVersion else {
            throw refusal(
                "it has version \(header.version.map(String.init) ?? "none"); this hub reads version \(HubState.currentVersion)"
            )
        }
        return try Self.decode(HubState.self, from: path, what: "hub state")
    }

    public func save(_ state: HubState) throws(StateFileError) {
        do {
            try AtomicFile.write(JSONEncoder.sorted.encode(state), to: path)
        } catch {
            throw StateFileError(description: "cannot save the hub state to \(path): \(error)")
        }
    }

    private struct Header: Decodable {
        var format: String?
        var version: Int?
    }

    private func refusal(_ reason: String) -> StateFileError {
        StateFileError(description: "refusing the hub state file \(path): \(reason)")
    }

    /// Reads a JSON file this user owns and nobody else may write.
    static func decode<T: Decodable>(_ type: T.Type, from path: String, what: String) throws(StateFileError) -> T {
        func refuse(_ reason: String) -> StateFileError {
            StateFileError(description: "refusing the \(what) file \(path): \(reason)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw refuse(errorText()) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw refuse("it is not a regular file") }
        guard info.st_uid == getuid() else {
            throw refuse("it belongs to uid \(info.st_uid), not to this user (uid \(getuid()))")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw refuse("others may write it (mode \(String(info.st_mode & 0o777, radix: 8)))")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw refuse("\(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw refuse("it is corrupt (\(Self.describe(error)))")
        }
    }

    private static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let context): "not valid JSON: \(context.debugDescription)"
        case .keyNotFound(let key, let context): "no \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "a wrong value at \(path(context.codingPath)): \(context.debugDescription)"
        default: "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
