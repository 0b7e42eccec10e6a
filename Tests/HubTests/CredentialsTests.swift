import Foundation
import HubFiles
import SharedDevice
import TestSupport
import Testing

/// Docs/behaviour.md §1: credentials kept as salted slow hashes; a bad user and a bad password look alike.
@Suite(.ownThread) struct CredentialsTests {
    static let directory = ConsoleDirectory([
        (DirectoryUser(name: "stage", role: .staging), "stage"),
        (DirectoryUser(name: "cou2", email: "ana@example.test"), "s3cret"),
    ])

    @Test func theRightPasswordAuthenticatesTheUser() {
        let user = Self.directory.authenticate("cou2", "s3cret")
        #expect(user?.name == "cou2" && user?.email == "ana@example.test")
    }

    @Test(arguments: [
        ("cou2", "cou2"), ("cou2", ""), ("nobody", "s3cret"), ("", ""), ("COU2", "s3cret"),
        ("cou2", "s3cret\u{0}"), (String(repeating: "x", count: 1 << 20), "s3cret"),
        ("cou2", String(repeating: "x", count: 1 << 20)),
    ])
    func anythingElseIsRefusedTheSameWay(user: String, password: String) {
        #expect(Self.directory.authenticate(user, password) == nil)
    }

    @Test func thePasswordIsKeptOnlyAsASaltedHash() throws {
        let encoded = String(decoding: try JSONEncoder().encode(Self.directory), as: UTF8.self)
        #expect(!encoded.contains("s3cret"))
        let hashes = Self.directory.accounts.map(\.password)
        #expect(hashes.allSatisfy { $0.algorithm == "scrypt" && $0.salt.count == 16 && $0.hash.count == 32 })
        // Two hashes of one password differ by their salt.
        let again = PasswordHash(hashing: "s3cret")
        #expect(again.hash != hashes[1].hash && again.verifies("s3cret") && hashes[1].verifies("s3cret"))
    }

    @Test func aTamperedHashVerifiesNothing() {
        var hash = PasswordHash(hashing: "pw")
        hash.algorithm = "plain"
        #expect(!hash.verifies("pw"))
        var emptied = PasswordHash(hashing: "pw")
        emptied.hash = Data()
        #expect(!emptied.verifies("pw"))
    }
}
