import DeviceContract
import Foundation

/// The events written to a trace folder since the last read: each file is read on from where
/// the previous read stopped (whole lines only), so the runner can say after each step what
/// surfaced during it without reading every trace again.
final class TraceTail {
    private let folder: String
    private var offsets: [String: UInt64] = [:]

    init(folder: String) { self.folder = folder }

    func newEvents() -> [TraceEvent] {
        TraceEvent.traceFiles(in: folder).flatMap { name -> [TraceEvent] in
            guard let handle = FileHandle(forReadingAtPath: folder + "/" + name) else { return [] }
            defer { try? handle.close() }
            let offset = offsets[name] ?? 0
            guard (try? handle.seek(toOffset: offset)) != nil else { return [] }
            let data = Self.readUntilZero(handle)
            guard let lastNewline = data.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
            let whole = data[data.startIndex...lastNewline]
            offsets[name] = offset + UInt64(whole.count)
            return String(decoding: whole, as: UTF8.self).split(separator: "\n").compactMap(TraceEvent.init(line:))
        }
    }

    /// What follows, up to the zeros a trace file keeps in reserve: read a piece at a time, so
    /// the reserve is not read with it.
    private static func readUntilZero(_ handle: FileHandle) -> Data {
        var data = Data()
        while let piece = try? handle.read(upToCount: 16 << 10), !piece.isEmpty {
            if let zero = piece.firstIndex(of: 0) {
                data += piece[piece.startIndex..<zero]
                break
            }
            data += piece
        }
        return data
    }
}
