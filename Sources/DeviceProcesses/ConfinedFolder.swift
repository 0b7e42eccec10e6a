import CSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A folder whose files are reached beneath it only. Every path is resolved by the kernel from
/// the folder's descriptor (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`), so neither
/// `..` in a name nor a link planted on the way can lead a write, a read, a listing or a delete
/// out of it. Files are private (0600), folders too (0700).
public final class ConfinedFolder: Sendable {
    public let path: String
    private let descriptor: Int32

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init(_ path: String) throws {
        descriptor = open(path, sdlab_open_path_flag() | O_DIRECTORY | O_CLOEXEC)
        self.path = path
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(path): \(errorText())")
        }
    }

    deinit { close(descriptor) }

    /// The entries of the folder `relative`; nil when it is not a folder beneath this one (it
    /// is missing, a link or a file).
    public func entries(of relative: String) -> [FolderListing.Entry]? {
        let fd = sdlab_open_beneath(descriptor, relative, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        guard let stream = fdopendir(fd) else {
            close(fd)
            return nil
        }
        return FolderListing.entries(reading: stream)
    }

    /// Whether `relative` is an entry beneath this folder, reached without a link.
    public func contains(_ relative: String) -> Bool {
        let fd = sdlab_open_beneath(descriptor, relative, sdlab_open_path_flag() | O_CLOEXEC, 0)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// The content of the file `relative`; nil when it cannot be read beneath this folder.
    public func contents(of relative: String) -> Data? {
        let fd = sdlab_open_beneath(descriptor, relative, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
        }
    }

    /// Replaces the file `relative` with `data` as a whole: written to `NAME.draft` beside it,
    /// then renamed over it, so that a reader finds the old content or the new. A draft left by
    /// a process killed mid-write keeps the name as its start.
    public func write(_ data: Data, to relative: String) throws {
        let (parent, name) = try split(relative)
        defer { close(parent) }
        let draft = name + Self.draftSuffix
        let fd = openat(parent, draft, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot create", relative) }
        let problem = AtomicFile.writeFully(fd, data) ? nil : failure("cannot write", relative)
        close(fd)
        if let problem {
            unlinkat(parent, draft, 0)
            throw problem
        }
        guard renameat(parent, draft, parent, name) == 0 else {
            let problem = failure("cannot replace", relative)
            unlinkat(parent, draft, 0)
            throw problem
        }
    }

    public static let draftSuffix = ".draft"

    /// Creates the folder `relative` (its parent must exist); one already there is fine.
    public func makeFolder(_ relative: String) throws {
        let (parent, name) = try split(relative)
        defer { close(parent) }
        guard mkdirat(parent, name, 0o700) == 0 || errno == EEXIST else {
            throw failure("cannot create", relative)
        }
    }

    /// Removes the entry `relative` (a file, a link, or with `folder` an empty folder), never
    /// what a link points to; one already gone is fine.
    public func remove(_ relative: String, folder: Bool = false) throws {
        let (parent, name) = try split(relative)
        defer { close(parent) }
        guard unlinkat(parent, name, folder ? AT_REMOVEDIR : 0) == 0 || errno == ENOENT else {
            throw failure("cannot delete", relative)
        }
    }

    /// The folder holding `relative`, opened beneath this one, and the entry's name in it.
    private func split(_ relative: String) throws -> (parent: Int32, name: String) {
        let slash = relative.lastIndex(of: "/")
        let name = String(slash.map { relative[relative.index(after: $0)...] } ?? relative[...])
        guard !name.isEmpty, name != ".", name != ".." else {
            throw Failure(description: "\(relative) names no file")
        }
        let parentPath = slash.map { String(relative[..<$0]) } ?? "."
        let parent = sdlab_open_beneath(descriptor, parentPath, sdlab_open_path_flag() | O_DIRECTORY | O_CLOEXEC, 0)
        guard parent >= 0 else { throw failure("cannot reach the folder of", relative) }
        return (parent, name)
    }

    /// What failed on `relative`, named by its whole path, with the system's reason.
    private func failure(_ what: String, _ relative: String) -> Failure {
        Failure(description: "\(what) \(path)/\(relative): \(errorText())")
    }
}
