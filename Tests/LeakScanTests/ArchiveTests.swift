import Foundation
import SharedDevice
import TestSupport
import Testing

@testable import LeakScan

/// Archives read as libarchive reads them: every entry's data, name and link target.
@Suite(.ownThread) struct ArchiveTests {
    /// Every format GNU tar writes: data, and a symbolic link whose target is a canary; in GNU
    /// and POSIX formats a name longer than a header holds (a long-name entry, a pax header).
    @Test(arguments: ["v7", "ustar", "gnu", "posix"]) func tarEntriesNamesAndLinksAreRead(format: String) throws {
        let container = try ScratchContainer()
        let long = ["gnu", "posix"].contains(format)
        let name = (long ? String(repeating: "folder/", count: 20) : "folder/") + "notes.txt"
        try container.write(record(canary(1)), to: "files/" + name)
        try FileManager.default.createSymbolicLink(
            atPath: container.path("files/link"), withDestinationPath: "\(canary(2))")
        try run(["tar", "--format=\(format)", "-C", container.path("files"), "-cf", container.path("notes.tar"), "."])
        let bytes = try contents(of: container.path("notes.tar"))
        #expect(Array(bytes[257..<262]) == (format == "v7" ? [0, 0, 0, 0, 0] : Array("ustar".utf8)))
        let read = try #require(reading(bytes, with: Archive.read))
        #expect(read.problems.isEmpty)
        #expect(read.labels(holding: canary(1)) == ["tar:./\(name)"])
        #expect(read.labels(holding: canary(2)) == ["tar-link:./link"])
        #expect(read.texts("tar-name").contains("./\(name)"))
    }

    /// An ar archive, as binutils' `ar` writes one (a .deb is one too): each member's data.
    @Test func arMembersAreRead() throws {
        let container = try ScratchContainer()
        try container.write(record(canary(3)), to: "notes.txt")
        try run(["ar", "rcD", container.path("notes.a"), container.path("notes.txt")])
        let read = try #require(reading(try contents(of: container.path("notes.a")), with: Archive.read))
        #expect(read.problems.isEmpty)
        #expect(read.labels(holding: canary(3)) == ["ar:notes.txt"])
    }

    /// POSIX pax, as Python's tarfile writes it: a name in UTF-8 and a pax header that carries
    /// it, and data.
    @Test func paxEntriesAreRead() throws {
        let container = try ScratchContainer()
        try python(
            """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as archive:
                data = sys.argv[2].encode()
                entry = tarfile.TarInfo("Übergabe/" + sys.argv[3] + ".txt")
                entry.size = len(data)
                archive.addfile(entry, io.BytesIO(data))
            """, [container.path("notes.tar"), String(decoding: record(canary(13)), as: UTF8.self), "\(canary(4))"])
        let read = try #require(reading(try contents(of: container.path("notes.tar")), with: Archive.read))
        #expect(read.problems.isEmpty)
        #expect(read.labels(holding: canary(13)) == ["tar:Übergabe/\(canary(4)).txt"])
        #expect(read.labels(holding: canary(4)) == ["tar-name"])
    }

    /// Zip entries of each method Python writes: stored, deflated, bzip2 and LZMA.
    @Test func zipEntriesOfEveryMethodAreRead() throws {
        let container = try ScratchContainer()
        try python(
            """
            import sys, zipfile
            methods = {"stored": zipfile.ZIP_STORED, "deflated": zipfile.ZIP_DEFLATED,
                       "bzip2": zipfile.ZIP_BZIP2, "lzma": zipfile.ZIP_LZMA}
            with zipfile.ZipFile(sys.argv[1], "w") as archive:
                for number, (name, method) in enumerate(methods.items()):
                    archive.writestr(name + ".txt", sys.argv[2 + number] + " " + name * 100, method)
            """, [container.path("notes.zip")] + (5...8).map { "\(canary($0))" })
        let read = try #require(reading(try contents(of: container.path("notes.zip")), with: Archive.read))
        #expect(read.problems.isEmpty)
        for (number, name) in zip(5...8, ["stored", "deflated", "bzip2", "lzma"]) {
            #expect(read.labels(holding: canary(number)) == ["zip:\(name).txt"])
        }
        #expect(read.texts("zip-name").sorted() == ["bzip2.txt", "deflated.txt", "lzma.txt", "stored.txt"])
    }

    @Test func anEncryptedZipEntryIsAProblemNamingIt() throws {
        let container = try ScratchContainer()
        try container.write(record(canary(9)), to: "secret.txt")
        try container.write(record(canary(10)), to: "open.txt")
        try run(["zip", "-q", "-j", "-P", "pass", container.path("secret.zip"), container.path("secret.txt")])
        try run(["zip", "-q", "-j", container.path("secret.zip"), container.path("open.txt")])
        let read = try #require(reading(try contents(of: container.path("secret.zip")), with: Archive.read))
        #expect(read.problems.count == 1)
        #expect(read.problems.first?.hasPrefix("zip entry secret.txt is encrypted: ") == true, "\(read.problems)")
        #expect(read.labels(holding: canary(9)) == [])
        #expect(read.labels(holding: canary(10)) == ["zip:open.txt"])
    }

    /// Data that fails its check is still what an attacker reads: a value, and a problem.
    @Test func anEntryWithABadChecksumIsReadAndNamed() throws {
        let container = try ScratchContainer()
        try python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as archive:
                archive.writestr("notes.txt", sys.argv[2] + " deflated " * 50, zipfile.ZIP_DEFLATED)
            data = bytearray(open(sys.argv[1], "rb").read())
            # The CRC-32 in the local header and in the central directory's.
            central = data.index(b"PK\\x01\\x02")
            for offset in (14, central + 16):
                data[offset] ^= 0xFF
            open(sys.argv[1], "wb").write(data)
            """, [container.path("notes.zip"), "\(canary(11))"])
        let read = try #require(reading(try contents(of: container.path("notes.zip")), with: Archive.read))
        #expect(read.labels(holding: canary(11)) == ["zip:notes.txt"])
        #expect(read.problems.count == 1)
        #expect(read.problems.first?.hasPrefix("zip entry notes.txt cannot be read: ") == true, "\(read.problems)")
    }

    @Test func valuesStopAtTheLimit() throws {
        let container = try ScratchContainer()
        try container.write(Array(repeating: 0x61, count: 100_000), to: "files/big.txt")
        try run(["tar", "-C", container.path("files"), "-cf", container.path("big.tar"), "big.txt"])
        let bytes = try contents(of: container.path("big.tar"))
        let read = try #require(reading(bytes, limit: 1000, with: Archive.read))
        #expect(read.stopped)
        #expect(read.byteCount == 1000)
        let whole = try #require(reading(bytes, limit: 200_000, with: Archive.read))
        #expect(!whole.stopped)
        #expect(whole.texts("tar:big.txt").first?.utf8.count == 100_000)
    }

    @Test func bytesThatAreNoArchiveAreNotRead() {
        for _ in 0..<200 {
            #expect(reading(randomBytes(4096), with: Archive.read) == nil)
        }
        #expect(reading(Array("Note: ustar, tar and zip are words here\n".utf8), with: Archive.read) == nil)
        // The magic where tar has it, with no header that holds around it.
        let fake = Array(repeating: 0x41, count: 257) + Array("ustar\u{0}00".utf8) + Array(repeating: 0x41, count: 300)
        #expect(Archive.family(of: fake) == "tar")
        #expect(reading(fake, with: Archive.read) == nil)
    }

    /// Neither GMime (with GLib) nor libarchive is loaded into an app process at its start: the
    /// scanner loads them when it first needs them.
    @Test func anAppProcessDoesNotLinkTheFormatLibraries() throws {
        let app = builtProgram("sdlab-app")
        try #require(FileManager.default.isExecutableFile(atPath: app), "\(app) is built")
        let needed = try neededLibraries(of: app)
        #expect(needed.contains { $0.hasPrefix("libc.so") }, "readelf lists \(needed)")
        for library in ["libgmime", "libarchive", "libglib", "libgobject", "libgio"] {
            #expect(!needed.contains { $0.hasPrefix(library) }, "\(library) in \(needed)")
        }
    }
}

extension Archive {
    static func family(of bytes: [UInt8]) -> String? { bytes.withUnsafeBufferPointer { family(of: $0) } }
}
