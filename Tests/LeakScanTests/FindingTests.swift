import Crypto
import Foundation
import LeakScan
import SharedDevice
import Testing

/// How findings are told: how each was read, and per group the number of canaries.
@Suite struct FindingTests {
    private func finding(_ canary: Canary, _ place: String, via: [String] = []) -> LeakScanner.Finding {
        LeakScanner.Finding(
            canary: canary, app: "notes", file: "/c/" + place, place: place, encrypted: via.first == "aes-gcm",
            ways: via.isEmpty ? [] : [LeakScanner.Route(via)])
    }

    @Test func describedCountsCanariesAndSaysHowEachFileWasRead() {
        let findings = [
            finding(canary(1), "Library/Caches/notes.gz", via: ["gzip"]),
            finding(canary(1), "Documents/notes.sqlite-wal"),
            finding(canary(2), "Documents/notes.sqlite-wal"),
            finding(canary(2), "Documents/notes.sqlite-wal", via: ["base64"]),
            finding(canary(3, .common), "caches/cou1/common-3-3.txt"),
        ]
        #expect(
            findings.described
                == "cou1 common ×1 (caches/cou1/common-3-3.txt), cou1 plain ×2 (Documents/notes.sqlite-wal [base64],"
                + " Library/Caches/notes.gz [gzip])")
    }

    @Test func findingsMadeWithoutHowAreReadAsTheyAre() {
        let old = LeakScanner.Finding(
            canary: canary(1), app: "notes", file: "/c/a.txt", place: "a.txt", encrypted: false)
        #expect(old.via == "" && [old].described == "cou1 plain ×1 (a.txt)")
    }

    /// A canary read several ways in one file is one record left: one finding, with every way
    /// unless one is its plain text.
    @Test func aCanaryReadSeveralWaysInAFileIsOneFinding() throws {
        let container = try ScratchContainer()
        let encoded = Data(record(canary(2))).base64EncodedString()
        let wide = "\(canary(2))".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        try container.write(record(canary(1)) + Array(Data(record(canary(1))).base64EncodedString().utf8), to: "a.txt")
        try container.write(Array("\(encoded) ".utf8) + wide + [0, 0], to: "b.bin")
        #expect(container.sightings() == ["a.txt [] \(canary(1))", "b.bin [base64, utf16le] \(canary(2))"])
        #expect(container.scan().described == "cou1 plain ×2 (a.txt, b.bin [base64, utf16le])")
    }

    /// A sealed box opened with a key found in the container, and what it holds read like any file.
    @Test func sealedBoxesAreOpenedAndTheirPlaintextRead() throws {
        let container = try ScratchContainer()
        let key = SymmetricKey(size: .bits256)
        try container.write(key.withUnsafeBytes { Array($0) }, to: "keychain/app-data.key")
        let plaintext =
            record(canary(1, .sensitive)) + Array(Data(record(canary(2, .sensitive))).base64EncodedString().utf8)
        let sealed = try AES.GCM.seal(plaintext, using: key).combined!
        try container.write(Array(sealed), to: "documents/cou1/sensitive-1-2.sealed")
        let found = container.scan()
        #expect(
            found.map { "\($0.canary.number) \($0.via) \($0.encrypted)" } == [
                "1 aes-gcm true", "2 aes-gcm > base64 true",
            ])
        #expect(
            found.described == "cou1 sensitive ×2 (documents/cou1/sensitive-1-2.sealed [aes-gcm, aes-gcm > base64])")
    }
}
