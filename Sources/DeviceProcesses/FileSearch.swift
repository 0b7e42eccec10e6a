import CSystem
import Glibc

/// Whether a file holds some bytes, found in a read-only mapping with the C library's `memmem`
/// rather than byte by byte: a debug build of an app is a hundred megabytes, and `sdlab check`
/// looks into each program a scenario names.
public enum FileSearch {
    /// Whether the file at `path` contains `bytes`; nil when it cannot be read.
    public static func file(_ path: String, contains bytes: [UInt8]) -> Bool? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        guard size > 0 else { return bytes.isEmpty }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            return nil
        }
        defer { munmap(mapped, size) }
        return bytes.withUnsafeBytes { needle in
            memmem(mapped, UInt(size), needle.baseAddress, UInt(needle.count)) != nil
        }
    }
}
