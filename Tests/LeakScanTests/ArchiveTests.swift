import Foundation
import SharedDevice
import Testing

@testable import LeakScan

/// Archives read as libarchive reads them: every entry's data, name and link target.
@Suite struct ArchiveTests {
    /// GNU tar's own format: a long name (a GNU long-name entry), a symbolic link whose target
    /// is a canary, and data.
    @Test func gnuTarEntriesNamesAndLinksAreRead() throws {
        let container = try ScratchContainer()
        let deep = String(repeating: "folder/", count: 20) + "notes.txt"
        try container.write(record(canary(1)), to: "files/" + deep)
        try FileManager.default.createSymbolicLink(
            atPath: container.path("files/link"), withDestinationPath: "\(canary(2))")
        try run(["tar", "--format=gnu", "-C", container.path("files"), "-cf", container.path("notes.tar"), "."])
        let read = try #require(reading(try contents(of: container.path("notes.tar")), with: Archive.read))
        #expect(read.problems.isEmpty)
        #expect(read.labels(holding: canary(1)) == ["tar:./\(deep)"])
        #expect(read.labels(holding: canary(2)) == ["tar-link:./link"])
        #expect(read.texts("tar-name").contains("./\(deep)"))
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
            """, [container.path("notes.tar"), String(decoding: record(canary(3)), as: UTF8.self), "\(canary(4))"])
        let read = try #require(reading(try contents(of: container.path("notes.tar")), with: Archive.read))
        #expect(read.problems.isEmpty)
        #expect(read.labels(holding: canary(3)) == ["tar:Übergabe/\(canary(4)).txt"])
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
