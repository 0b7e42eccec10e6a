import DeviceProcesses
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An append-only file written through a shared memory mapping: an append is a copy into
/// memory, no system call, and what was copied is in the page cache at once, so it survives
/// the process being killed just as a `write` would. Space is reserved ahead with
/// `posix_fallocate` (a full disk is refused then, never a fault later), and the file is cut
/// back to its data when closed; a killed writer leaves zeros after the last line, which the
/// next writer of the file skips and readers ignore. One writer per file at a time.
///
/// The last `lastWordsSize` bytes of the space already reserved are kept for one line only:
/// the one that says the file could not grow (`appendLastWords`), so a reader never mistakes
/// a cut-short file for a whole one.
final class MappedLog: Sendable {
    private struct State {
        var fd: Int32
        /// The mapping's address (0: none) and size.
        var base: UInt = 0
        var capacity = 0
        /// Where the next byte goes.
        var end = 0
        /// The disk refused more space: later lines are dropped, never the process.
        var full = false
        /// The bytes of the line being appended, kept between lines so that a line costs no
        /// allocation of its own.
        var line: [UInt8] = []
    }

    private static let chunk = 1 << 20
    static let lastWordsSize = 8 << 10
    private let state: Mutex<State>

    /// Opens (creating, 0600) `path` to append after what it holds.
    init(path: String) throws(TraceLog.OpenError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw TraceLog.OpenError(description: "cannot open the trace file \(path): \(Self.error())")
        }
        var info = stat()
        fstat(fd, &info)
        var state = State(fd: fd)
        state.end = Int(info.st_size)
        let failure = Self.reserve(atLeast: state.end, in: &state)
        guard failure == 0 else {
            Glibc.close(fd)
            throw TraceLog.OpenError(
                description: "cannot reserve space for the trace file \(path): \(errorText(failure))")
        }
        // A writer killed earlier left zeros after its last line, and maybe half a line.
        let bytes = UnsafeMutablePointer<UInt8>(bitPattern: state.base)!
        while state.end > 0, bytes[state.end - 1] == 0 { state.end -= 1 }
        self.state = Mutex(state)
        if state.end > 0, bytes[state.end - 1] != UInt8(ascii: "\n") { append([UInt8(ascii: "\n")]) }
    }

    deinit { close() }

    /// Copies `bytes` after the last ones. Returns the system's error number the first time
    /// the file cannot grow (EFBIG, ENOSPC, …); from then on lines are dropped.
    @discardableResult
    func append(_ bytes: [UInt8]) -> Int32? {
        state.withLock { state -> Int32? in
            guard !state.full else { return nil }
            if state.end + bytes.count > state.capacity - Self.lastWordsSize {
                let failure = Self.reserve(atLeast: state.end + bytes.count, in: &state)
                if failure != 0 {
                    state.full = true
                    return failure
                }
            }
            Self.copy(bytes, into: &state)
            return nil
        }
    }

    /// Builds a line (`build` appends its bytes to an empty array) and copies it after the last
    /// ones, as `append` does. `build` runs with the file locked: it must not use the file.
    @discardableResult
    func appendLine(_ build: (inout [UInt8]) -> Void) -> Int32? {
        state.withLock { state -> Int32? in
            guard !state.full else { return nil }
            var line = state.line
            state.line = []
            line.removeAll(keepingCapacity: true)
            build(&line)
            defer { state.line = line }
            if state.end + line.count > state.capacity - Self.lastWordsSize {
                let failure = Self.reserve(atLeast: state.end + line.count, in: &state)
                if failure != 0 {
                    state.full = true
                    return failure
                }
            }
            Self.copy(line, into: &state)
            return nil
        }
    }

    /// Writes `bytes` into the space kept for them, once the file could not grow (cut to fit).
    func appendLastWords(_ bytes: [UInt8]) {
        state.withLock { state in
            guard state.base != 0 else { return }
            Self.copy(Array(bytes.prefix(state.capacity - state.end)), into: &state)
        }
    }

    private static func copy(_ bytes: [UInt8], into state: inout State) {
        bytes.withUnsafeBytes { source in
            guard let from = source.baseAddress else { return }
            (UnsafeMutableRawPointer(bitPattern: state.base)! + state.end).copyMemory(
                from: from, byteCount: source.count)
        }
        let filledBefore = state.end / pageSize * pageSize
        state.end += bytes.count
        // Pages the log has moved past are never touched again: the file keeps them, the
        // process lets them go, so a long trace does not add to the app's memory.
        let filled = state.end / pageSize * pageSize
        if filled > filledBefore {
            let start = UnsafeMutableRawPointer(bitPattern: state.base)! + filledBefore
            madvise(start, filled - filledBefore, MADV_DONTNEED)
        }
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Cuts the file back to its data and unmaps it.
    func close() {
        state.withLock { state in
            guard state.fd >= 0 else { return }
            if state.base != 0 { munmap(UnsafeMutableRawPointer(bitPattern: state.base), state.capacity) }
            _ = ftruncate(state.fd, off_t(state.end))
            _ = Glibc.close(state.fd)
            state = State(fd: -1)
        }
    }

    /// Grows the file and its mapping to hold `needed` bytes and the last words, a chunk at a
    /// time. Returns 0, or the system's error number.
    private static func reserve(atLeast needed: Int, in state: inout State) -> Int32 {
        let capacity = ((needed + lastWordsSize) / chunk + 1) * chunk
        // posix_fallocate returns its error rather than setting errno.
        let refused = posix_fallocate(state.fd, 0, off_t(capacity))
        guard refused == 0 else { return refused }
        let mapping = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, state.fd, 0)
        guard let mapping, mapping != MAP_FAILED else { return errno }
        if state.base != 0 { munmap(UnsafeMutableRawPointer(bitPattern: state.base), state.capacity) }
        state.base = UInt(bitPattern: mapping)
        state.capacity = capacity
        return 0
    }

    private static func error() -> String { errorText(errno) }
}
