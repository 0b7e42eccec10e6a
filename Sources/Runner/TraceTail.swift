import DeviceContract
import Foundation

/// A run's trace folder, read as it grows: each file is read on from where the previous read
/// stopped (whole lines only) and each line decoded once, so that the runner can say after
/// every step what surfaced during it, and the expectations and the end of the run get the
/// merged trace without reading every file again.
final class TraceTail {
    private let folder: String
    private var offsets: [String: UInt64] = [:]
    /// Each file's events so far, in its order.
    private var events: [String: [TraceEvent]] = [:]

    init(folder: String) { self.folder = folder }

    /// The events written since the last read.
    func newEvents() -> [TraceEvent] {
        TraceEvent.traceFiles(in: folder).flatMap { name -> [TraceEvent] in
            let new = readOn(name)
            events[name, default: []] += new
            return new
        }
    }

    /// Every event so far, merged in time order (stable for equal times, as `TraceEvent.merged`).
    func merged() -> [TraceEvent] {
        _ = newEvents()
        let all = events.keys.sorted().flatMap { events[$0]! }
        return all.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }

    private func readOn(_ name: String) -> [TraceEvent] {
        guard let handle = FileHandle(forReadingAtPath: folder + "/" + name) else { return [] }
        defer { try? handle.close() }
        let offset = offsets[name] ?? 0
        guard (try? handle.seek(toOffset: offset)) != nil else { return [] }
        let data = Self.readUntilZero(handle)
        guard let lastNewline = data.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        let whole = data[data.startIndex...lastNewline]
        offsets[name] = offset + UInt64(whole.count)
        return TraceEvent.events(inLines: String(decoding: whole, as: UTF8.self).split(separator: "\n"))
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
