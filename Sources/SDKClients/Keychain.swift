import Crypto
import DeviceProcesses
import FoundationEssentials
import Glibc

/// An app's keychain: a private folder of 256-bit keys (`NAME.key`) and small saved items
/// (`NAME.json`), each written atomically (0600). It lives in the app's container, so it
/// outlives the process, and the leak scanner finds whatever is left in it.
public struct Keychain: Sendable {
    public let folder: String

    public init(folder: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }

    /// A key, made on first use.
    public func key(_ name: String) throws -> SymmetricKey {
        if let existing = existingKey(name) { return existing }
        let key = SymmetricKey(size: .bits256)
        try AtomicFile.write(key.withUnsafeBytes { Data($0) }, to: keyPath(name))
        return key
    }

    public func existingKey(_ name: String) -> SymmetricKey? {
        guard let bytes = FileManager.default.contents(atPath: keyPath(name)), bytes.count == 32 else { return nil }
        return SymmetricKey(data: bytes)
    }

    public func deleteKey(_ name: String) throws { try removeIfPresent(keyPath(name)) }

    /// A saved item, or nil when there is none or it cannot be read back.
    public func item<T: Decodable>(_ name: String, as type: T.Type) -> T? {
        FileManager.default.contents(atPath: itemPath(name)).flatMap { try? JSONDecoder().decode(type, from: $0) }
    }

    /// Whether an item exists, readable or not.
    public func hasItem(_ name: String) -> Bool { FileManager.default.fileExists(atPath: itemPath(name)) }

    public func save<T: Encodable>(_ value: T, as name: String) throws {
        try AtomicFile.write(JSONEncoder().encode(value), to: itemPath(name))
    }

    private func keyPath(_ name: String) -> String { folder + "/\(name).key" }
    private func itemPath(_ name: String) -> String { folder + "/\(name).json" }

    private func removeIfPresent(_ file: String) throws {
        guard FileManager.default.fileExists(atPath: file) else { return }
        try FileManager.default.removeItem(atPath: file)
    }
}

/// A value an SDK keeps in the keychain, and what the keychain holds of it: written only when
/// the two differ, so one that could not be written (a full disk) is written at the next
/// `write`, while the SDK goes on with the value in memory.
struct KeychainRecord<Value: Codable & Equatable & Sendable>: Sendable {
    let name: String
    /// What the keychain holds; nil when that is not known (a file that cannot be read back).
    private var held: Value?

    init(_ name: String, holding held: Value?) {
        self.name = name
        self.held = held
    }

    /// Saves `value` unless the keychain holds it already.
    mutating func write(_ value: Value, to keychain: Keychain) throws {
        guard held != value else { return }
        try keychain.save(value, as: name)
        held = value
    }
}

/// Why a keychain write failed, or nil when it did not.
func whyFailed(_ write: () throws -> Void) -> String? {
    do {
        try write()
        return nil
    } catch {
        return "\(error)"
    }
}
