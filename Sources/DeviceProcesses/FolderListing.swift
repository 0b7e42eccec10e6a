#if canImport(Glibc)
    import Glibc
#endif

/// A folder's entries as readdir gives them, without `.` and `..`: an app lists its folders on
/// every cleanup and reads its whole container after it, the bench lists threads while it
/// times, and FileManager's listing costs several times more.
public enum FolderListing {
    public struct Entry: Sendable {
        public let name: String
        public let isFolder: Bool
        public let isFile: Bool
    }

    /// The entries of `folder`, in no particular order; none when it cannot be read.
    public static func entries(of folder: String) -> [Entry] {
        guard let stream = opendir(folder) else { return [] }
        return entries(reading: stream)
    }

    /// The entries of an open folder stream, which this closes.
    static func entries(reading stream: OpaquePointer) -> [Entry] {
        defer { closedir(stream) }
        var entries: [Entry] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            let type = Int32(entry.pointee.d_type)
            entries.append(Entry(name: name, isFolder: type == Int32(DT_DIR), isFile: type == Int32(DT_REG)))
        }
        return entries
    }
}
