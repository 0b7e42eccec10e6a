import CFileAccess
import Foundation
import LeakScan
import SharedDevice
import Testing

/// What a careless or hostile app leaves where a scan that read names as text, or skipped what
/// it could not open, would have passed: every such file is read, or the scan says it could not.
@Suite struct HostileContainerTests {
    /// A name cut inside a character (`Schicht\xc3-1.txt`) and a folder renamed to `old-\xff`:
    /// read by their bytes, reported escaped.
    @Test func namesThatAreNotUTF8AreRead() throws {
        let container = try ScratchContainer()
        try container.write(record(canary(1)), toBytes: Array("Schicht".utf8) + [0xC3] + Array("-1.txt".utf8))
        try container.write(record(canary(2)), toBytes: Array("old-".utf8) + [0xFF] + Array("/notes.txt".utf8))
        let scan = container.scan()
        #expect(scan.isComplete)
        #expect(container.sightings() == ["Schicht\\xc3-1.txt [] \(canary(1))", "old-\\xff/notes.txt [] \(canary(2))"])
        #expect(!scan.contains { $0.place.contains("\u{FFFD}") })
    }

    /// A folder made unreadable (mode 000): root reads it; anyone else cannot, and the scan
    /// names it as not read instead of passing it over.
    @Test func anUnreadableFolderIsReadOrNamed() throws {
        let container = try ScratchContainer()
        try container.write(record(canary(3)), to: "Documents/locked/notes.txt")
        try container.write(record(canary(4)), to: "Documents/locked-file.txt")
        chmod(container.path("Documents/locked"), 0)
        chmod(container.path("Documents/locked-file.txt"), 0)
        defer { chmod(container.path("Documents/locked"), 0o755) }
        if geteuid() == 0 {
            #expect(container.scan().isComplete)
            #expect(
                container.sightings() == [
                    "Documents/locked-file.txt [] \(canary(4))", "Documents/locked/notes.txt [] \(canary(3))",
                ])
        }
        // As another user, on this thread alone (the file system's user is per thread).
        let scan = asNobody { container.scan() }
        #expect(!scan.isComplete)
        #expect(
            scan.unreadable.map(\.description) == [
                "incomplete: \(container.path("Documents/locked")): cannot be opened: Permission denied (mode 0, owner \(geteuid()))",
                "incomplete: \(container.path("Documents/locked-file.txt")): cannot be opened: Permission denied (mode 0, owner \(geteuid()))",
            ])
        #expect(scan.isEmpty)
    }

    /// A container the scan cannot even open is not an empty one.
    @Test func anUnreadableContainerIsNamed() throws {
        let container = try ScratchContainer()
        try container.write(record(canary(5)), to: "notes.txt")
        chmod(container.root, 0)
        defer { chmod(container.root, 0o755) }
        let scan = asNobody { container.scan() }
        #expect(scan.unreadable.map(\.place) == ["."])
        #expect(scan.unreadable.first?.reason.hasPrefix("cannot be opened: Permission denied") == true)
    }

    /// A deep link holds the canary as one step of its path.
    @Test func aCanaryIsFoundWhateverFollowsIt() throws {
        let container = try ScratchContainer()
        try container.write(Array("contoso-notes://open/\(canary(6))/edit?x=1\n".utf8), to: "links.txt")
        try container.write(Array("\(canary(7))/".utf8), to: "end.txt")
        #expect(container.sightings() == ["end.txt [] \(canary(7))", "links.txt [] \(canary(6))"])
        #expect(Canary.all(inUTF8: Array("\(canary(8))/9/x".utf8)) == [canary(8)])
    }

    /// A link's target is text an attacker reads (`readlink`), and so are extended attributes.
    @Test func linkTargetsAndExtendedAttributesAreRead() throws {
        let container = try ScratchContainer()
        try container.write(Array("plain".utf8), to: "Documents/note.txt")
        #expect(symlink("\(canary(9))", container.path("Documents/shortcut")) == 0)
        let value = Array("\(canary(10))".utf8)
        let attached = setxattr(container.path("Documents/note.txt"), "user.note", value, value.count, 0)
        var expected = ["Documents/shortcut [link] \(canary(9))"]
        // Not every file system keeps user attributes (tmpfs before Linux 6.6).
        if attached == 0 { expected.insert("Documents/note.txt [xattr:user.note] \(canary(10))", at: 0) }
        #expect(container.sightings() == expected)
    }

    /// Files the scenario declares out of scope are not read, and said to be left out.
    @Test func placesOutOfScopeAreLeftOutAndListed() throws {
        let container = try ScratchContainer()
        try container.write(record(canary(11)), to: "Library/Caches/big/a.bin")
        try container.write(record(canary(12)), to: "Documents/notes.txt")
        let scan = LeakScanner(container: container.root, app: "notes", outOfScope: ["Library/Caches/big"]).scan()
        #expect(scan.map(\.canary) == [canary(12)])
        #expect(scan.outOfScope == ["notes/Library/Caches/big"])
        #expect(scan.isComplete)
    }

    /// A file larger than the budget a file is read to is named, not skipped.
    @Test func aFileOverTheBudgetIsNamed() throws {
        let container = try ScratchContainer()
        try container.write(randomBytes(5000), to: "big.bin")
        let scan = LeakScanner(
            container: container.root, app: "notes", budget: .init(fileBytes: 4096, decodedBytes: 1 << 20)
        ).scan()
        #expect(scan.unreadable.map(\.place) == ["big.bin"])
        #expect(scan.unreadable.first?.reason.hasPrefix("is 5000 bytes, more than") == true)
    }

    /// Runs `body` on this thread as the user nobody (the file system's user, which is per thread).
    private func asNobody<Result>(_ body: () -> Result) -> Result {
        let previous = setfsuid(65534)
        defer { setfsuid(uid_t(previous)) }
        return body()
    }
}

extension ScratchContainer {
    /// Writes `bytes` at a place given as bytes (a name that is not UTF-8), making its folders.
    func write(_ bytes: [UInt8], toBytes place: [UInt8]) throws {
        let path = Array(root.utf8) + [0x2F] + place
        var folder: [UInt8] = []
        for (index, byte) in path.enumerated() where byte == 0x2F && index > 0 {
            folder = Array(path[..<index])
            mkdir(folder.map { CChar(bitPattern: $0) } + [0], 0o755)
        }
        let descriptor = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(Glibc.write(descriptor, bytes, bytes.count) == bytes.count)
    }
}

/// The runner's scan of the containers folder: a container it cannot open is named too.
@Suite struct ContainersFolderTests {
    @Test func aContainerWhoseNameIsNotUTF8IsNamed() throws {
        let containers = try ScratchContainer()
        try containers.write(record(canary(1)), to: "mail/notes.txt")
        try containers.write(record(canary(2)), toBytes: Array("odd-".utf8) + [0xFF] + Array("/notes.txt".utf8))
        let scan = LeakScanner(containersFolder: containers.root).scan()
        #expect(scan.map(\.app) == ["mail"])
        #expect(scan.unreadable.count == 1)
        #expect(scan.unreadable.first?.reason.hasPrefix("cannot be opened") == true)
    }
}
