import DeviceProcesses
import Faults
import Foundation
import TestSupport
import Testing

/// The property the verdict rests on: a run of a scenario that must fail never passes, whatever
/// fault is injected, wherever. Each seed picks a fault and its moment; a seed that passes is
/// printed with the command that replays it. `SDLAB_PROPERTY_SEEDS=N` runs more seeds,
/// `SDLAB_PROPERTY_SEED=S` one.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(10)))
struct NeverAFalsePassTests {
    static let scenario = RunCommandTests.scenarios + "/must-fail-slow-cleanup.yaml"

    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let one = environment["SDLAB_PROPERTY_SEED"].flatMap(UInt64.init) { return [one] }
        return Array(1...(environment["SDLAB_PROPERTY_SEEDS"].flatMap(UInt64.init) ?? 6))
    }

    enum Fault: CaseIterable {
        /// `ulimit -f` at a random size: some file of the run cannot grow.
        case fileSizeLimit
        /// SIGKILL to a random process of the run (bus, hub, an app, a hook) at a random moment.
        case kill
        /// An app killed and another process started under its bus name in its place.
        case squatter
        /// An app of the run keeps its records outside its container by one route (a C library
        /// call, a socket, shared memory, a child, a raw system call, a link, or the built-in
        /// app's cleanup hook): none may land, and the run still fails.
        case escape
        /// The mail app's cleanup hides its records rather than removing them, one way of an
        /// attacker's reading (a name that is not UTF-8, a folder made unreadable, base64 and
        /// gzip nested five deep, indented base64 lines, a zip entry in bzip2 or lzma, a canary
        /// inside a URL, a SQLite row longer than a page, a gzip'd blob in one, a binary plist's
        /// UTF-16 strings, a mail's UTF-16 attachment, a sealed box in a zip with its key beside
        /// it, folder names, a file's name with `:` for `/`, an extended attribute's name): the scan must find them or say it
        /// could not read them.
        case hide
    }

    /// The ways the `hide` fault's hook keeps each record, by name.
    static let hidingWays: [String: String] = [
        "not-utf8": #"mv "$f" "$(dirname "$f")/old-$(printf '\377')-$(basename "$f")""#,
        "unreadable": #"d="$(dirname "$f")/locked"; mkdir -p "$d"; mv "$f" "$d/"; chmod 000 "$d""#,
        "nested": #"base64 "$f" | gzip | base64 | gzip | base64 > "$f.b64"; rm "$f""#,
        "yaml-base64": #"{ echo 'note: !!binary |'; base64 -w 76 "$f" | sed 's/^/    /'; } > "$f.yaml"; rm "$f""#,
        "zip-bzip2":
            #"python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1] + ".zip", "w", zipfile.ZIP_BZIP2).write(sys.argv[1])' "$f"; rm "$f""#,
        "zip-lzma":
            #"python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1] + ".zip", "w", zipfile.ZIP_LZMA).write(sys.argv[1])' "$f"; rm "$f""#,
        "url-path": #"printf 'contoso-notes://open/%s/edit' "$(cat "$f")" > "$f.link"; rm "$f""#,
        // The storage forms apps keep records in, each read back by its own library.
        "sqlite-long-row": python(
            #"d = sqlite3.connect(f + ".db"); d.execute("CREATE TABLE drafts (body)"); "#
                + #"d.execute("INSERT INTO drafts VALUES (?)", ("x" * 4090 + text + "y" * 5000,)); d.commit()"#),
        "sqlite-gzip-blob": python(
            #"d = sqlite3.connect(f + ".db"); d.execute("CREATE TABLE files (data BLOB)"); "#
                + #"d.execute("INSERT INTO files VALUES (?)", (gzip.compress(os.urandom(9000) + text.encode()),)); "#
                + "d.commit()"),
        "binary-plist-utf16": python(
            #"open(f + ".plist", "wb").write(plistlib.dumps([{"title": "Übergabe " + text, "#
                + #""note": "é " + base64.b64encode(text.encode()).decode()}], fmt=plistlib.FMT_BINARY))"#),
        "mail-utf16": python(
            #"m = email.message.EmailMessage(); m["From"] = "a@example.com"; m.set_content("see"); "#
                + #"m.add_attachment(text.encode("utf-16"), maintype="application", subtype="octet-stream", "#
                + #"filename="r.txt"); open(f + ".eml", "wb").write(bytes(m))"#),
        "sealed-in-zip": python(
            #"from cryptography.hazmat.primitives.ciphers.aead import AESGCM; key = os.urandom(32); "#
                + #"nonce = os.urandom(12); open(f + ".key", "wb").write(key); "#
                + #"zipfile.ZipFile(f + ".zip", "w").writestr("sealed", nonce + AESGCM(key).encrypt(nonce, "#
                + "text.encode(), None))"),
        "folder-names": #"mkdir -p "$(dirname "$f")/cache/$(cut -d' ' -f1 "$f")"; rm "$f""#,
        // A record made a file's name: a name cannot hold `/`, and Apple's file systems show one as `:`.
        "file-name": python(#"open(os.path.join(os.path.dirname(f), text.strip().replace("/", ":")), "w").close()"#),
        "xattr-name": python(
            #"[os.setxattr(os.path.dirname(f), "user." + w, b"") for w in text.split() if w.startswith("SDLAB")]"#),
    ]

    /// A hiding way in Python: `f` is the record's file, `text` its content; the file is removed after.
    static func python(_ body: String) -> String {
        let imports = "import base64, email.message, gzip, os, plistlib, sqlite3, sys, zipfile"
        return #"python3 -c '"# + imports + #"; f = sys.argv[1]; text = open(f).read(); "# + body
            + #"' "$f" && rm "$f""#
    }

    /// The routes out of a container the `escape` fault takes: `FenceEscapes`'s, and a hook's.
    static let escapeRoutes = FenceTests.routes + ["hook"]

    @Test func aRunThatMustFailNeverPasses() async throws {
        for seed in Self.seeds {
            var random = SeededGenerator(state: seed)
            let fault = Fault.allCases.randomElement(using: &random)!
            let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-property")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let (status, what) = try await Self.run(with: fault, in: folder, random: &random)
            print("NeverAFalsePassTests: seed \(seed) (\(fault): \(what)) ended with \(status)")
            #expect(
                status != 0,
                """
                seed \(seed) (\(fault): \(what)) passed a scenario that must fail; replay it with
                SDLAB_PROPERTY_SEED=\(seed) swift test --filter NeverAFalsePassTests
                """)
            try await eventually(within: .seconds(15), "seed \(seed): nothing of the run is left") {
                await offPool { LiveProcesses.mentioning(folder).isEmpty }
            }
        }
    }

    /// Each hiding way once, without the property's long prelude: the scan reads the records
    /// back, and the run fails naming the mail app's leak. (A hook has no privileges: the
    /// `unreadable` way's folder, made unreadable, takes no second record, which stays where it
    /// was; the scan, as root, reads them all.)
    @Test(arguments: hidingWays.keys.sorted()) func everyHidingWayIsReadBack(way: String) async throws {
        let folder = try DevicePaths.makeTemporaryDirectory(prefix: "sdlab-hide")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await Self.hide(way: way, in: folder, prelude: 1)
        #expect(result.status == 1, "\(way): \(result.output)")
        #expect(result.output.contains("mail: leaks 3"), "\(way): \(result.output)")
    }

    /// Runs the scenario with `fault` injected; returns the exit status and what was done.
    static func run(
        with fault: Fault, in folder: String, random: inout SeededGenerator
    ) async throws -> (Int32, String) {
        let environment = environment(with: ["TMPDIR": folder])
        if fault == .escape { return try await escape(in: folder, random: &random) }
        if fault == .hide { return try await hide(in: folder, random: &random) }
        if fault == .fileSizeLimit {
            let blocks = Int.random(in: 1500...5000, using: &random)
            let result = try await TestSupport.run(
                "/bin/sh", ["-c", "ulimit -f \(blocks) && exec \"$0\" run \"$1\"", sdlabPath, scenario],
                environment: environment, timeout: .seconds(300))
            return (result.status, "ulimit -f \(blocks)")
        }
        let (runner, _) = try ChildProcess.spawn(
            sdlabPath, ["run", scenario], stdout: .null, stderr: .null, environment: environment)
        defer { runner.stop(grace: .seconds(5)) }
        let delay = Int.random(in: 0...4000, using: &random)
        try await Task.sleep(for: .milliseconds(delay))  // the random moment of the fault
        var squatter: ChildProcess?
        let what: String
        let victims = await offPool { LiveProcesses.mentioning(folder) }
        if fault == .kill {
            what = killOne(of: victims, random: &random)
        } else {
            (what, squatter) = try await squat(of: victims, random: &random)
        }
        defer { squatter?.stop(grace: .seconds(2)) }
        guard let status = await offPool({ runner.exitStatus(timeout: .seconds(120)) }) else {
            return (-1, what + "; the run did not end")
        }
        switch status {
        case .exited(let code): return (code, "\(what) after \(delay) ms")
        case .signaled(let signal): return (128 + signal, "\(what) after \(delay) ms")
        }
    }

    /// Runs the scenario with one more app, or the mail app's hook (which sees none of the
    /// app's variables, so it is given the place), keeping records outside. Landing outside
    /// counts as a pass: the property fails either way.
    static func escape(in folder: String, random: inout SeededGenerator) async throws -> (Int32, String) {
        let route = escapeRoutes.randomElement(using: &random)!
        let outside = try FenceTests.Outside(folder)
        defer { outside.removeShared() }
        var text = try String(contentsOfFile: scenario, encoding: .utf8)
        if route == "hook" {
            text = text.replacingOccurrences(
                of: #"{hook: "sleep 0.3;"#,
                with: #"{hook: "printf SDLAB-CANARY > '"# + outside.path + #"/hook'; sleep 0.3;"#)
        } else {
            text = text.replacingOccurrences(
                of: "  - {name: notes, sdk: msal, background: true}\n",
                with: "  - {name: notes, sdk: msal, background: true}\n"
                    + "  - {name: escaper, sdk: msal, background: true, executable: \(FenceTests.escaping), cleanup: own}\n"
            )
            .replacingOccurrences(
                of: "  - write: {app: notes, kind: plain, count: 1}\n",
                with:
                    "  - write: {app: notes, kind: plain, count: 1}\n  - write: {app: escaper, kind: plain, count: 1}\n"
            )
        }
        try #require(text.contains(route == "hook" ? "/hook'" : "name: escaper"), "the escape was not put in")
        let file = try writeScenario(text, named: "escape.yaml", in: folder)
        let result = try await TestSupport.run(
            sdlabPath, ["run", file], environment: outside.environment(routes: [route]), timeout: .seconds(120))
        let landed = outside.landed
        return (landed.isEmpty ? result.status : 0, "escape by \(route)" + (landed.isEmpty ? "" : ", landed \(landed)"))
    }

    /// Runs the scenario with mail's cleanup hiding its records one way, and its `within`
    /// loosened so that what the scan reads is the one thing that can fail it.
    static func hide(in folder: String, random: inout SeededGenerator) async throws -> (Int32, String) {
        let way = hidingWays.keys.sorted().randomElement(using: &random)!
        return (try await hide(way: way, in: folder).status, "records hidden by \(way)")
    }

    /// Runs the scenario with mail's cleanup hiding its records `way`, its prelude of session
    /// changes `prelude` times rather than 3,000 if given.
    static func hide(way: String, in folder: String, prelude: Int? = nil) async throws -> (
        status: Int32, output: String
    ) {
        let command = hidingWays[way]!
        let hook = folder + "/hide.sh"
        try AppGroupTests.writeExecutable(
            hook,
            // The files listed before the first is hidden: the hidden forms are new files.
            "#!/bin/sh\nfiles=$(find \"$SDLAB_CONTAINER/documents\" -type f)\n"
                + "printf '%s\\n' \"$files\" | while read -r f; do [ -n \"$f\" ] || continue; \(command); done\n")
        let text = try String(contentsOfFile: scenario, encoding: .utf8)
            .replacingOccurrences(
                of: #"{hook: "sleep 0.3; rm -rf \"$SDLAB_CONTAINER\"/documents/*"}"#, with: "{hook: \(hook)}"
            )
            .replacingOccurrences(of: "mail: {leaks: 0, within: 10ms}", with: "mail: {leaks: 0, within: 5s}")
            .replacingOccurrences(of: "times: 3000", with: "times: \(prelude ?? 3000)")
        try #require(text.contains(hook) && text.contains("within: 5s"), "the hiding hook was not put in")
        let result = try await TestSupport.run(
            sdlabPath, ["run", try writeScenario(text, named: "hide.yaml", in: folder)],
            environment: environment(with: ["TMPDIR": folder]), timeout: .seconds(120))
        return (result.status, result.stdout + result.stderr)
    }

    /// SIGKILL to one process of the run, not the runner or its guard.
    static func killOne(of processes: [(pid: Int32, commandLine: String)], random: inout SeededGenerator) -> String {
        let victims = processes.filter {
            !$0.commandLine.contains(" run ") && !$0.commandLine.contains(" guard ")
        }
        guard let victim = victims.randomElement(using: &random) else { return "nothing to kill yet" }
        kill(victim.pid, SIGKILL)
        return "killed \(victim.commandLine.prefix(80))"
    }

    /// Kills an app and starts another process with its command line, which takes its name.
    static func squat(
        of processes: [(pid: Int32, commandLine: String)], random: inout SeededGenerator
    ) async throws -> (String, ChildProcess?) {
        let apps = processes.filter { $0.commandLine.contains("--name") }
        guard let app = apps.randomElement(using: &random),
            let arguments = AnsweringAppTests.arguments(of: app.pid)
        else { return ("no app to squat yet", nil) }
        kill(app.pid, SIGKILL)
        _ = await offPool { ChildProcess(pid: app.pid).waitForExit(timeout: .seconds(5)) }
        let (squatter, _) = try ChildProcess.spawn(
            AnsweringAppTests.appExecutable, arguments, stdout: .null, stderr: .null, newSession: true)
        return ("squatted \(app.commandLine.prefix(60)) with PID \(squatter.pid)", squatter)
    }
}
