import CFileAccess
import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// The sandbox's fence, as a hostile app meets it: every route out of the container (a file, an
/// extended attribute, the host's name, a device node, a file handle, a call the fence does not
/// know) is refused and named, for the app, a launcher script and their children, whether it goes
/// through the C library or not (the fence's watch), and the run fails; the kernel (Landlock)
/// holds it too, and the app runs without privileges.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct FenceTests {
    static let escaping = TeamAppTests.example("FenceEscapes")
    /// Every route `FenceEscapes` takes; the run names each.
    static let routes = [
        "freopen", "mkstemp", "mkdtemp", "mkfifo", "bind", "shm", "devfd", "cwd-gone", "child", "raw", "link", "sysv",
        "setxattrat", "devnull-xattr", "hostname", "blockdev", "handle", "unknown-call", "newer-call",
    ]

    /// A place outside the app's container, and the environment that sends the app there; with
    /// what else a route could keep records in: the host's name, /dev/null's attributes, a file
    /// the app has a handle of, and a loop device's backing file.
    struct Outside {
        let folder: String
        let token: String
        /// The host's name before the app ran.
        let hostname: String
        /// A loop device over `blockStore`, kept open so that it goes when it is closed; nil where
        /// the test may not make one (without root).
        let blockDevice: (path: String, descriptor: Int32)?
        var path: String { folder + "/outside" }
        /// A file beside the outside folder, which the `handle` route opens by its handle.
        var handled: String { folder + "/handled" }
        var blockStore: String { folder + "/block-store" }

        init(_ folder: String) throws {
            self.folder = folder
            token = "sdlab-escape-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            hostname = Self.currentHostname
            try FileManager.default.createDirectory(atPath: folder + "/outside", withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: folder + "/handled"))
            try Data(count: 64 << 10).write(to: URL(fileURLWithPath: folder + "/block-store"))
            blockDevice = Self.loopDevice(over: folder + "/block-store")
        }

        func environment(routes: [String], _ more: [String: String] = [:]) -> [String: String] {
            var escape = [
                "TMPDIR": folder, "SDLAB_ESCAPE_TO": path, "SDLAB_ESCAPE_TOKEN": token,
                "SDLAB_ESCAPE_ROUTES": routes.joined(separator: ","),
            ]
            escape["SDLAB_ESCAPE_BLOCK"] = blockDevice?.path
            return TestSupport.environment(with: escape.merging(more) { $1 })
        }

        /// What landed outside the container: in the outside folder, in /dev/shm, in a System V
        /// segment, in an attribute of the outside folder or /dev/null, in the host's name, in the
        /// handled file or the loop device's store.
        var landed: [String] {
            let here = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["(unreadable)"]
            let shared = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []
            let segment = shmget(ftok(path, 83), 0, 0) >= 0 ? ["System V segment \(ftok(path, 83))"] : []
            let attributes =
                Self.attributes(of: path).map { "attribute \($0) of \(path)" }
                + Self.attributes(of: "/dev/null").filter { $0.hasSuffix(".sdlab") }.map {
                    "attribute \($0) of /dev/null"
                }
            let hostname = Self.currentHostname
            let renamed = hostname == self.hostname ? [] : ["the host's name, now \(hostname)"]
            let stored = [handled, blockStore].filter { file in
                let bytes = FileManager.default.contents(atPath: file) ?? Data()
                return bytes.range(of: Data("SDLAB-CANARY".utf8)) != nil
            }
            return here + shared.filter { $0.hasPrefix(token) }.map { "/dev/shm/" + $0 } + segment + attributes
                + renamed
                + stored
        }

        /// A new temporary folder of its own (`prefix`), which `remove()` takes away again.
        init(prefix: String) throws { try self.init(DevicePaths.makeTemporaryDirectory(prefix: prefix)) }

        /// The folder and whatever landed beyond it.
        func remove() {
            removeShared()
            try? FileManager.default.removeItem(atPath: folder)
        }

        /// What landed beyond the folder (/dev/shm, a System V segment, /dev/null's attributes, the
        /// host's name), and the loop device.
        func removeShared() {
            for name in landed where name.hasPrefix("/dev/shm/") { unlink(name) }
            let segment = shmget(ftok(path, 83), 0, 0)
            if segment >= 0 { shmctl(segment, IPC_RMID, nil) }
            for name in Self.attributes(of: "/dev/null") where name.hasSuffix(".sdlab") {
                removexattr("/dev/null", name)
            }
            if Self.currentHostname != hostname { _ = sethostname(hostname, hostname.utf8.count) }
            if let blockDevice { close(blockDevice.descriptor) }
        }

        static var currentHostname: String {
            var name = [CChar](repeating: 0, count: 256)
            gethostname(&name, name.count - 1)
            return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        /// The names of `file`'s extended attributes.
        static func attributes(of file: String) -> [String] {
            var names = [CChar](repeating: 0, count: 4096)
            let length = listxattr(file, &names, names.count)
            guard length > 0 else { return [] }
            return names[..<length].split(separator: 0).map {
                String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }

        /// A free loop device attached to `file` (LOOP_CONFIGURE, Linux 5.8), detached once its
        /// descriptor is closed (autoclear); nil without /dev/loop-control or the right to use it.
        static func loopDevice(over file: String) -> (path: String, descriptor: Int32)? {
            let control = open("/dev/loop-control", O_RDWR | O_CLOEXEC)
            guard control >= 0 else { return nil }
            defer { close(control) }
            let backing = open(file, O_RDWR | O_CLOEXEC)
            guard backing >= 0 else { return nil }
            defer { close(backing) }
            for _ in 0..<8 {  // another process may take the free one first
                let number = ioctl(control, 0x4C82)  // LOOP_CTL_GET_FREE
                guard number >= 0 else { return nil }
                let path = "/dev/loop\(number)"
                let device = open(path, O_RDWR | O_CLOEXEC)
                guard device >= 0 else { return nil }
                // struct loop_config: the backing descriptor first, lo_flags at byte 60.
                var config = [UInt8](repeating: 0, count: 304)
                withUnsafeBytes(of: UInt32(backing).littleEndian) { config.replaceSubrange(0..<4, with: $0) }
                config[60] = 4  // LO_FLAGS_AUTOCLEAR
                if config.withUnsafeMutableBytes({ ioctl(device, 0x4C0A, $0.baseAddress!) }) == 0 {
                    return (path, device)
                }
                close(device)
            }
            return nil
        }
    }

    static func scenario(executable: String) -> String {
        """
        name: an app that keeps its records outside
        apps:
          - {name: escaper, sdk: msal, background: true, executable: \(executable), cleanup: own}
        steps:
          - enroll: stage
          - checkout: cou1
          - launch: escaper
          - write: {app: escaper, kind: plain, count: 1}
        """
    }

    /// How the fence holds an app's writes in a run: Landlock alone, its refusals read from the
    /// kernel's audit (as root), or the watch, each write waiting for the runner
    /// (`SDLAB_FENCE_WATCH=writes`, and wherever the audit cannot be read).
    enum WriteHolding: String, CustomTestStringConvertible, Sendable {
        case kernel, watch

        var environment: [String: String] { self == .watch ? ["SDLAB_FENCE_WATCH": "writes"] : [:] }
        var testDescription: String { rawValue }
        /// Both where the runner may read the kernel's audit, the watch alone elsewhere.
        static var here: [WriteHolding] { geteuid() == 0 ? [.kernel, .watch] : [.watch] }
    }

    /// Each route out is refused and named, a child's and a raw system call's as the C library's,
    /// whether the kernel or the watch holds the writes; nothing lands outside, and the run fails.
    @Test(arguments: WriteHolding.here)
    func everyRouteOutIsRefusedAndTheRunFails(_ holding: WriteHolding) async throws {
        let outside = try Outside(prefix: "sdlab-fence")
        defer { outside.remove() }
        let folder = outside.folder
        let result = try await Self.runEscaper(
            Self.escaping, routes: Self.routes, holding.environment, outside: outside)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(outside.landed.isEmpty, "landed outside: \(outside.landed)")
        for route in Self.routes {
            #expect(
                result.stdout.contains(Self.naming(of: route, outside: outside, holding: holding)),
                "\(route) not named: \(result.stdout)")
        }
        if geteuid() == 0 {
            #expect(
                outside.blockDevice != nil, "no loop device: the block device route made a character device instead")
        }
        switch holding {
        case .kernel:
            // The kernel names the folder a file would be made in: one line for each such route.
            let newFile = "escaper tried to write outside its container: a new file in \(outside.path) (open, refused)"
            let fileRoutes = ["freopen", "mkstemp", "devfd", "cwd-gone", "raw", "link"]
            #expect(result.stdout.components(separatedBy: newFile).count - 1 >= fileRoutes.count, "\(result.stdout)")
            #expect(!result.stdout.contains("the write fence:"), "\(result.stdout)")
            #expect(try Self.launchedLine(in: folder).contains("; logged; watched"))
        case .watch:
            #expect(result.stdout.contains("\(outside.path)/freopen (open, refused)"), "\(result.stdout)")
            #expect(result.stdout.contains("/dev/shm/\(outside.token)-shm (open, refused)"), "\(result.stdout)")
            #expect(result.stdout.contains("(in a folder that is gone) (open, refused)"), "\(result.stdout)")
            #expect(result.stdout.contains("Documents/away/linked -> \(outside.path)/linked (open"), "\(result.stdout)")
            #expect(result.stdout.contains("\(outside.path)/raw (open, refused)"), "\(result.stdout)")
            #expect(result.stdout.contains("every write waits for the runner's watch"), "\(result.stdout)")
            let launched = try Self.launchedLine(in: folder)
            #expect(launched.contains("; watched") && !launched.contains("logged"), "\(launched)")
        }
        let log = try Self.log(in: folder)
        #expect(!log.contains("the fence let"), "\(log)")
        #expect(log.contains("Permission denied"), "the child's write was not refused: \(log)")
    }

    /// A launcher script is fenced from its first instruction, and so is what it starts: its own
    /// writes outside, and the app's child and raw system call, are refused and named, and
    /// nothing lands outside.
    @Test func aLauncherScriptAndItsChildrenAreFencedToo() async throws {
        let outside = try Outside(prefix: "sdlab-fence-launcher")
        defer { outside.remove() }
        let folder = outside.folder
        let launcher = folder + "/launch-escaper.sh"
        try """
        #!/bin/sh
        printf 'SDLAB-CANARY/cou1/launcher' > "$SDLAB_ESCAPE_TO/launcher"
        printf 'SDLAB-CANARY/cou1/launcher' > "/dev/shm/$SDLAB_ESCAPE_TOKEN-launcher"
        exec \(Self.escaping) "$@"
        """.write(toFile: launcher, atomically: true, encoding: .utf8)
        chmod(launcher, 0o755)
        let holding = try #require(WriteHolding.here.first)  // as a run holds writes by default
        let result = try await Self.runEscaper(launcher, routes: ["child", "raw"], outside: outside)
        #expect(outside.landed.isEmpty, "landed outside: \(outside.landed)")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let places =
            holding == .kernel
            ? ["a new file in \(outside.path)", "a new file in /dev/shm"]
            : ["\(outside.path)/launcher", "/dev/shm/\(outside.token)-launcher"]
        for place in places {
            #expect(result.stdout.contains("\(place) (open, refused)"), "\(result.stdout)")
        }
        for route in ["child", "raw"] {
            #expect(
                result.stdout.contains(Self.naming(of: route, outside: outside, holding: holding)), "\(result.stdout)")
        }
        let log = try Self.log(in: folder)
        #expect(!log.contains("the fence let"), "\(log)")
        #expect(log.contains("Permission denied"), "\(log)")
        let launched = try Self.launchedLine(in: folder)
        #expect(launched.contains(#""fence":"landlock "#) && launched.contains(#"; watched""#), "\(launched)")
    }

    /// Where the kernel has no Landlock (`SDLAB_FENCE_ABI=0` acts as if), the run says so on
    /// the console and in the app's trace, and the watch still refuses and names every route.
    @Test func withoutLandlockTheRunSaysSo() async throws {
        let outside = try Outside(prefix: "sdlab-fence-none")
        defer { outside.remove() }
        let folder = outside.folder
        let result = try await Self.runEscaper(
            Self.escaping, routes: ["mkstemp", "bind", "child", "raw"], ["SDLAB_FENCE_ABI": "0"], outside: outside)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("the write fence: the kernel has no Landlock here"), "\(result.stdout)")
        #expect(result.stdout.contains("\(outside.path)/mkstemp"), "\(result.stdout)")
        #expect(result.stdout.contains("\(outside.path)/sock (bind, refused)"), "\(result.stdout)")
        #expect(result.stdout.contains("\(outside.path)/child (open by sh, refused)"), "\(result.stdout)")
        #expect(result.stdout.contains("\(outside.path)/raw (open, refused)"), "\(result.stdout)")
        #expect(outside.landed.isEmpty, "landed outside: \(outside.landed)")
        let launched = try Self.launchedLine(in: folder)
        #expect(launched.contains(#""fence":"none: this kernel has no Landlock"#), "\(launched)")
        #expect(try Self.log(in: folder).contains("the watch alone refuses them outside its container"))
    }

    /// With the watch off, the run says that what the kernel refuses goes unnamed; Landlock still
    /// refuses it, and nothing lands outside.
    @Test func withoutTheWatchTheRunSaysSo() async throws {
        let outside = try Outside(prefix: "sdlab-fence-unwatched")
        defer { outside.remove() }
        let folder = outside.folder
        let result = try await Self.runEscaper(
            Self.escaping, routes: ["child", "raw"], ["SDLAB_FENCE_WATCH": "off"], outside: outside)
        #expect(
            result.stdout.contains(
                "the write fence: the watch is off (SDLAB_FENCE_WATCH=off): writes the kernel refuses are not named"),
            "\(result.stdout)")
        #expect(outside.landed.isEmpty, "landed outside: \(outside.landed)")
        #expect(!result.stdout.contains("(open by sh, refused)"), "\(result.stdout)")
        let launched = try Self.launchedLine(in: folder)
        #expect(launched.contains(#""fence":"landlock "#) && !launched.contains("watched"), "\(launched)")
    }

    /// Run as root, as CI runs it: the app and a cleanup hook's child hold no capability in any
    /// set and have no_new_privs, so root gives them nothing; and the run still passes.
    @Test(.enabled(if: geteuid() == 0, "the runner has privileges for the fence to drop only as root"))
    func anAppAndWhatItStartsRunWithoutPrivileges() async throws {
        #expect(try Self.privileges(of: "/proc/self/status")["CapEff"] != "0000000000000000", "the test holds none")
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-fence-privileges")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The hook's shell is the app's child ($PPID is the app); grep is the hook's child.
        let scenario = hookedMailScenario(
            named: "an app and what it starts run without privileges",
            hook: [
                #"grep -E '^(Name|Cap|NoNewPrivs)' /proc/$PPID/status > "$SDLAB_CONTAINER/app-status";"#,
                #"grep -E '^(Name|Cap|NoNewPrivs)' /proc/self/status > "$SDLAB_CONTAINER/hook-child-status";"#,
                #"rm -rf "$SDLAB_CONTAINER"/documents/*"#,
            ], then: ["- settle", "- expect:", "    mail: {user: none, leaks: 0}"])
        let file = try writeScenario(scenario, named: "privileges.yaml", in: folder)
        let result = try await run(
            sdlabPath, ["run", "--keep", file], environment: environment(with: ["TMPDIR": folder]),
            timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for (who, name) in [("app-status", "sdlab-app"), ("hook-child-status", "grep")] {
            let held = try Self.privileges(of: "\(folder)/\(try Self.runFolder(in: folder))/containers/mail/\(who)")
            #expect(held["Name"] == name, "\(who): \(held)")
            for set in ["CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"] {
                #expect(held[set] == "0000000000000000", "\(who): \(set) is \(held[set] ?? "missing")")
            }
            #expect(held["NoNewPrivs"] == "1", "\(who): \(held)")
        }
    }

    /// A fence that cannot drop the app's privileges does not start it: the launch fails naming
    /// why. `setpriv` locks SECBIT_NOROOT cleared in the runner, so the fence cannot set it.
    @Test(
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "locking a securebit needs root and setpriv"))
    func aFenceThatCannotDropPrivilegesStartsNoApp() async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-fence-undropped")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = """
            name: an app whose privileges cannot be dropped
            apps:
              - {name: mail, sdk: msal, background: true}
            steps:
              - enroll: stage
              - launch: mail
            """
        let file = try writeScenario(scenario, named: "undropped.yaml", in: folder)
        let result = try await run(
            "/usr/bin/setpriv", ["--securebits", "+noroot_locked", sdlabPath, "run", "--keep", file],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(60))
        #expect(result.status != 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(
                "launch mail: the fence did not start it: cannot drop the app's privileges: cannot lock the securebits"),
            "\(result.stdout)\(result.stderr)")
        let trace = (try? Self.runFile("trace/app-mail.jsonl", in: folder)) ?? ""
        #expect(!trace.contains(#""event":"launched""#), "the app started: \(trace)")
    }

    /// The `Name`, `Cap…` and `NoNewPrivs` lines of a `/proc/PID/status` (or a copy), by name.
    static func privileges(of status: String) throws -> [String: String] {
        let lines = try String(contentsOfFile: status, encoding: .utf8).split(separator: "\n")
        return Dictionary(
            lines.compactMap { line in
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return parts.count == 2 && (parts[0] == "Name" || parts[0].hasPrefix("Cap") || parts[0] == "NoNewPrivs")
                    ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { first, _ in first })
    }

    /// Runs the scenario with `executable` as its escaper, sent outside by `routes`, its run folder
    /// kept in the outside's folder.
    static func runEscaper(
        _ executable: String, routes: [String], _ more: [String: String] = [:], outside: Outside
    ) async throws -> CommandOutput {
        let file = try writeScenario(scenario(executable: executable), named: "escape.yaml", in: outside.folder)
        return try await run(
            sdlabPath, ["run", "--keep", file], environment: outside.environment(routes: routes, more),
            timeout: .seconds(90))
    }

    /// How the run names `route`: a write by the place it would land (the watch names the file;
    /// the kernel names the folder a file would be made in) and the call, a call refused as such
    /// by the call and why.
    static func naming(of route: String, outside: Outside, holding: WriteHolding = .watch) -> String {
        let tried = "escaper tried to write outside its container:"
        switch (route, holding) {
        case ("child", .watch): return "\(tried) \(outside.path)/child (open by sh, refused)"
        case ("child", .kernel): return "\(tried) a new file in \(outside.path) (open by sh, refused)"
        case ("mkdtemp", .watch): return "(mkdir, refused)"
        case ("mkdtemp", .kernel): return "\(tried) a new folder in \(outside.path) (mkdir, refused)"
        case ("mkfifo", .watch): return "\(tried) \(outside.path)/fifo (mknod, refused)"
        case ("mkfifo", .kernel): return "\(tried) a new FIFO in \(outside.path) (mknod, refused)"
        case ("bind", .watch): return "\(tried) \(outside.path)/sock (bind, refused)"
        case ("bind", .kernel): return "\(tried) a new socket in \(outside.path) (bind, refused)"
        case ("shm", .kernel): return "\(tried) a new file in /dev/shm (open, refused)"
        case ("blockdev", .kernel): return "escaper tried mknod (refused): a device node ("
        case ("blockdev", .watch):
            return
                "escaper tried mknod (refused): a \(outside.blockDevice == nil ? "character" : "block") device node ("
        case ("sysv", _): return "escaper tried shmget (refused): System V IPC"
        case ("setxattrat", _): return "\(tried) \(outside.path) (setxattrat, refused)"
        case ("devnull-xattr", _): return " -> /dev/null (fsetxattr, refused)"
        case ("hostname", _): return "escaper tried sethostname (refused)"
        case ("handle", _): return "escaper tried open_by_handle_at (refused)"
        case ("unknown-call", _): return "escaper tried syscall 1000 (refused)"
        case ("newer-call", _): return "escaper tried file_setattr (refused)"
        case (_, .kernel): return "\(tried) a new file in \(outside.path) (open, refused)"
        case (_, .watch): return "(open, refused)"
        }
    }

    /// The kept run folder's file at `path` inside it.
    static func runFile(_ path: String, in folder: String) throws -> String {
        try String(contentsOfFile: "\(folder)/\(try runFolder(in: folder))/\(path)", encoding: .utf8)
    }

    /// The name of the run folder kept in `folder`.
    static func runFolder(in folder: String) throws -> String {
        try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
    }

    static func log(in folder: String) throws -> String { try runFile("logs/app-escaper.log", in: folder) }

    static func launchedLine(in folder: String) throws -> String {
        try #require(
            try runFile("trace/app-escaper.jsonl", in: folder).split(separator: "\n").first {
                $0.contains(#""event":"launched""#)
            }
            .map(String.init))
    }
}
