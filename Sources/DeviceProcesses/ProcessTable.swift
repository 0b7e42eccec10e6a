import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A process for good: its PID and its start time (clock ticks after boot, field 22 of
/// `/proc/PID/stat`). A PID reused by a later process has another start time, so a process
/// noted once is never mistaken for whatever takes its number after it ends.
public struct ProcessIdentity: Hashable, Sendable {
    public let pid: Int32
    public let startTime: UInt64
}

/// One look at every process in `/proc`: who is whose parent, and when each started.
public struct ProcessTable: Sendable {
    public struct Entry: Sendable {
        public let parent: Int32
        public let startTime: UInt64
        /// Ended but not yet reaped: nothing to stop any more.
        public let isZombie: Bool
    }

    public let entries: [Int32: Entry]

    /// Reads `/proc` now; a process that ends while it is read is left out.
    public static func read() -> ProcessTable {
        var entries: [Int32: Entry] = [:]
        for pid in pids() {
            if let entry = entry(of: pid) { entries[pid] = entry }
        }
        return ProcessTable(entries: entries)
    }

    /// The live process `pid` as it is now, or nil once it is gone (or a zombie).
    public static func identity(of pid: Int32) -> ProcessIdentity? {
        guard let entry = entry(of: pid), !entry.isZombie else { return nil }
        return ProcessIdentity(pid: pid, startTime: entry.startTime)
    }

    /// The live process `pid` of this table.
    public func identity(of pid: Int32) -> ProcessIdentity? {
        guard let entry = entries[pid], !entry.isZombie else { return nil }
        return ProcessIdentity(pid: pid, startTime: entry.startTime)
    }

    /// Every live process below `roots` (children, their children, …), the roots left out.
    public func descendants(of roots: Set<Int32>) -> Set<ProcessIdentity> {
        var children: [Int32: [Int32]] = [:]
        for (pid, entry) in entries { children[entry.parent, default: []].append(pid) }
        var found: Set<ProcessIdentity> = []
        var seen = roots
        var waiting = Array(roots)
        while let parent = waiting.popLast() {
            for child in children[parent] ?? [] where seen.insert(child).inserted {
                waiting.append(child)
                if let identity = identity(of: child) { found.insert(identity) }
            }
        }
        return found
    }

    /// `pid`'s parent, its parent's parent, … up to the first process.
    public func ancestors(of pid: Int32) -> [Int32] {
        var chain: [Int32] = []
        var current = pid
        while let parent = entries[current]?.parent, parent > 0, !chain.contains(parent) {
            chain.append(parent)
            current = parent
        }
        return chain
    }

    /// The numeric names in `/proc`, read with readdir: cheap enough to repeat every 100 ms.
    private static func pids() -> [Int32] {
        guard let folder = opendir("/proc") else { return [] }
        defer { closedir(folder) }
        var pids: [Int32] = []
        while let item = readdir(folder) {
            let pid = withUnsafeBytes(of: item.pointee.d_name) { name in
                number(in: name.prefix { $0 != 0 })
            }
            if let pid, pid > 0, pid <= Int32.max { pids.append(Int32(pid)) }
        }
        return pids
    }

    /// The decimal number `digits` spell, or nil if they spell none.
    private static func number(in digits: some Collection<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count < 20 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + UInt64(digit - UInt8(ascii: "0"))
        }
        return value
    }

    private static func entry(of pid: Int32) -> Entry? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            return count > 0 ? entry(parsing: UnsafeBufferPointer(rebasing: buffer[..<count])) : nil
        }
    }

    /// State (field 3), parent (4) and start time (22) of a `/proc/PID/stat` line, read past
    /// the command's closing parenthesis (field 2), since a command may hold spaces and
    /// parentheses. One plain pass over the bytes: the guard reads every process's line every
    /// 100 ms or so.
    private static func entry(parsing line: UnsafeBufferPointer<UInt8>) -> Entry? {
        var index = line.count - 1
        while index >= 0, line[index] != UInt8(ascii: ")") { index -= 1 }
        guard index >= 0 else { return nil }
        var field = 2
        var value: UInt64 = 0
        var state: UInt8 = 0
        var parent: UInt64 = 0
        for byte in line[(index + 1)...] {
            if byte == UInt8(ascii: " ") {
                if field == 4 { parent = value }
                if field == 22 { break }
                field += 1
                value = 0
            } else if field == 3 {
                state = byte
            } else {
                value = value &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
            }
        }
        guard field == 22, parent <= Int32.max else { return nil }
        return Entry(parent: Int32(parent), startTime: value, isZombie: state == UInt8(ascii: "Z"))
    }
}
