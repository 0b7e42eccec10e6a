import Crypto
import CryptoExtras
import Foundation
import SharedDevice
import Synchronization

/// A password as the console keeps it: a salted scrypt hash, never the password itself.
public struct PasswordHash: Codable, Equatable, Sendable {
    public var algorithm = "scrypt"
    public var rounds: Int
    public var blockSize: Int
    public var parallelism: Int
    public var salt: Data
    public var hash: Data

    /// scrypt with N = 2^12, r = 8, p = 1: 4 MiB and a few milliseconds per check, slow
    /// enough for an attacker of the state file, quick enough for a storm of check-outs.
    public init(hashing password: String) {
        rounds = 1 << 12
        blockSize = 8
        parallelism = 1
        salt = Data(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        hash =
            Self.derive(password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism) ?? Data()
    }

    public func verifies(_ password: String) -> Bool {
        guard algorithm == "scrypt", !hash.isEmpty,
            let derived = Self.derive(
                password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism),
            derived.count == hash.count
        else { return false }
        // Constant time, so the comparison says nothing about how close a guess was.
        return zip(derived, hash).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func derive(_ password: String, salt: Data, rounds: Int, blockSize: Int, parallelism: Int) -> Data? {
        guard
            let key = try? KDF.Scrypt.deriveKey(
                from: Array(password.utf8), salt: salt, outputByteCount: 32,
                rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        else { return nil }
        return key.withUnsafeBytes { Data($0) }
    }
}

/// The management console's user directory (Docs/behaviour.md §1): who may enroll, check out and sign
/// in, with their passwords hashed.
public struct ConsoleDirectory: Codable, Equatable, Sendable {
    public struct Account: Codable, Equatable, Sendable {
        public var user: DirectoryUser
        public var password: PasswordHash
    }

    public private(set) var accounts: [Account]

    /// Hashes each password; the clear text goes no further. A password this process hashed
    /// before reuses that hash (salt included): a suite of scenarios with the same users then
    /// pays scrypt once per password, not once per scenario and user.
    public init(_ users: [(user: DirectoryUser, password: String)]) {
        accounts = users.map { user, password in
            if let known = Self.hashed.withLock({ $0[password] }) { return Account(user: user, password: known) }
            let hash = PasswordHash(hashing: password)
            Self.hashed.withLock { $0[password] = hash }
            return Account(user: user, password: hash)
        }
    }

    private static let hashed = Mutex<[String: PasswordHash]>([:])

    /// `device up` without a scenario: `stage` (multi-user staging), `cou1` and `cou2`, each
    /// password equal to the name.
    public static func defaults() -> ConsoleDirectory {
        ConsoleDirectory([
            (DirectoryUser(name: "stage", role: .staging), "stage"),
            (DirectoryUser(name: "cou1"), "cou1"),
            (DirectoryUser(name: "cou2"), "cou2"),
        ])
    }

    /// The user if the name and password match, else nil, whichever was wrong: an unknown
    /// name costs the same hash as a known one, so timing does not tell them apart either.
    public func authenticate(_ name: String, _ password: String) -> DirectoryUser? {
        // Long ones are refused unhashed; NUL cannot come over D-Bus, and scrypt's C interface
        // would stop at it.
        guard name.utf8.count <= Self.maxLength, password.utf8.count <= Self.maxLength,
            !password.utf8.contains(0)
        else { return nil }
        guard let account = accounts.first(where: { $0.user.name == name }) else {
            _ = Self.decoy.verifies(password)
            return nil
        }
        return account.password.verifies(password) ? account.user : nil
    }

    public static let maxLength = 1024
    private static let decoy = PasswordHash(hashing: "")
}
