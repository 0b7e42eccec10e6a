import DeviceProcesses
import Foundation
import TestSupport
import Testing

/// The sandbox's fence, as a hostile app meets it: every route out of the container is refused
/// and named, for the app, a launcher script and their children, whether it goes through the C
/// library or not (the fence's watch), and the run fails; the kernel (Landlock) holds it too.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct FenceTests {
    static let escaping = TeamAppTests.example("FenceEscapes")
    /// Every route `FenceEscapes` takes; the run names each.
    static let routes = [
        "freopen", "mkstemp", "mkdtemp", "mkfifo", "bind", "shm", "devfd", "cwd-gone", "child", "raw", "link", "sysv",
    ]

    /// A place outside the app's container, and the environment that sends the app there.
    struct Outside {
        let folder: String
        let token: String
        var path: String { folder + "/outside" }

        init(_ folder: String) throws {
            self.folder = folder
            token = "sdlab-escape-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: folder + "/outside", withIntermediateDirectories: true)
        }

        func environment(routes: [String], _ more: [String: String] = [:]) -> [String: String] {
            TestSupport.environment(
                with: [
                    "TMPDIR": folder, "SDLAB_ESCAPE_TO": path, "SDLAB_ESCAPE_TOKEN": token,
                    "SDLAB_ESCAPE_ROUTES": routes.joined(separator: ","),
                ].merging(more) { $1 })
        }

        /// What landed outside the container: in the outside folder, in /dev/shm, in a System V segment.
        var landed: [String] {
            let here = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["(unreadable)"]
            let shared = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? []
            let segment = shmget(ftok(path, 83), 0, 0) >= 0 ? ["System V segment \(ftok(path, 83))"] : []
            return here + shared.filter { $0.hasPrefix(token) }.map { "/dev/shm/" + $0 } + segment
        }

        /// A new temporary folder of its own (`prefix`), which `remove()` takes away again.
        init(prefix: String) throws { try self.init(DevicePaths.makeTemporaryDirectory(prefix: prefix)) }

        /// The folder and whatever landed in /dev/shm or a System V segment.
        func remove() {
            removeShared()
            try? FileManager.default.removeItem(atPath: folder)
        }

        func removeShared() {
            for name in landed where name.hasPrefix("/dev/shm/") { unlink(name) }
            let segment = shmget(ftok(path, 83), 0, 0)
            if segment >= 0 { shmctl(segment, IPC_RMID, nil) }
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

    /// Each route out is refused and named, a child's and a raw system call's as the C library's;
    /// nothing lands outside, and the run fails.
    @Test func everyRouteOutIsRefusedAndTheRunFails() async throws {
        let outside = try Outside(prefix: "sdlab-fence")
        defer { outside.remove() }
        let folder = outside.folder
        let result = try await Self.runEscaper(Self.escaping, routes: Self.routes, outside: outside)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(outside.landed.isEmpty, "landed outside: \(outside.landed)")
        for route in Self.routes {
            #expect(
                result.stdout.contains("escaper tried to write outside its container:")
                    && result.stdout.contains("(\(Self.call(of: route)), refused)"),
                "\(route) not named: \(result.stdout)")
        }
        #expect(result.stdout.contains("\(outside.path)/freopen (open, refused)"), "\(result.stdout)")
        #expect(result.stdout.contains("/dev/shm/\(outside.token)-shm (open, refused)"), "\(result.stdout)")
        #expect(result.stdout.contains("(in a folder that is gone) (open, refused)"), "\(result.stdout)")
        #expect(result.stdout.contains("Documents/away/linked -> \(outside.path)/linked (open"), "\(result.stdout)")
        #expect(result.stdout.contains("\(outside.path)/child (open by sh, refused)"), "\(result.stdout)")
        #expect(result.stdout.contains("\(outside.path)/raw (open, refused)"), "\(result.stdout)")
        #expect(!result.stdout.contains("the write fence:"), "\(result.stdout)")
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
        let result = try await Self.runEscaper(launcher, routes: ["child", "raw"], outside: outside)
        #expect(outside.landed.isEmpty, "landed outside: \(outside.landed)")
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        for place in ["\(outside.path)/launcher", "/dev/shm/\(outside.token)-launcher"] {
            #expect(result.stdout.contains("\(place) (open, refused)"), "\(result.stdout)")
        }
        #expect(result.stdout.contains("\(outside.path)/child (open by sh, refused)"), "\(result.stdout)")
        #expect(result.stdout.contains("\(outside.path)/raw (open, refused)"), "\(result.stdout)")
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

    static func call(of route: String) -> String {
        switch route {
        case "child": "open by sh"
        case "mkdtemp": "mkdir"
        case "mkfifo": "mknod"
        case "bind": "bind"
        case "sysv": "shmget"
        default: "open"
        }
    }

    /// The kept run folder's file at `path` inside it.
    static func runFile(_ path: String, in folder: String) throws -> String {
        let runFolder = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("sdlab-run-") })
        return try String(contentsOfFile: "\(folder)/\(runFolder)/\(path)", encoding: .utf8)
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
