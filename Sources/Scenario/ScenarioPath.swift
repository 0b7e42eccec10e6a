import DeviceContract
import DeviceProcesses
import Foundation

/// Paths in a scenario are relative to the scenario file's folder, and the model holds them
/// absolute: a scenario runs the same from any current folder, and one written elsewhere (a
/// fuzz reproduction) still names the same files.
public enum ScenarioPath {
    /// `path` against `folder`; `.` and `..` are resolved on the text, as a shell's `cd`
    /// does. An absolute path is kept as written.
    static func absolute(_ path: String, in folder: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var parts: [Substring] = []
        for part in (folder + "/" + path).split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The command's first word when it is a path to a program (`./clean.sh`, `/usr/bin/env`):
    /// it has a `/` and only characters the shell takes literally, so `$HOME/x`, `~/x` or
    /// `VAR=a/b` are left to the shell.
    static func programPath(of command: String) -> (word: Range<String.Index>, path: String)? {
        let start = command.firstIndex { !$0.isWhitespace } ?? command.endIndex
        let end = command[start...].firstIndex { $0.isWhitespace || ";|&<>()".contains($0) } ?? command.endIndex
        let word = String(command[start..<end])
        guard word.contains("/"), word.unicodeScalars.allSatisfy(isLiteral) else { return nil }
        return (start..<end, word)
    }

    /// The command with a relative program path made absolute; other words as written.
    static func hookCommand(_ command: String, in folder: String) -> String {
        guard let (word, path) = programPath(of: command), !path.hasPrefix("/") else { return command }
        return command.replacingCharacters(in: word, with: shellWord(absolute(path, in: folder)))
    }

    /// Characters a POSIX shell leaves alone in a word.
    static func isLiteral(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-/+@%,:".unicodeScalars.contains(scalar)
    }

    /// `text` as one shell word: single-quoted when the shell would read anything in it.
    static func shellWord(_ text: String) -> String {
        text.unicodeScalars.allSatisfy(isLiteral)
            ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Why the app at `path` (an `executable:`, written as `written`, relative to `folder`)
    /// cannot run in a device; nil when it is a script or a program built on the device host.
    static func problem(runningApp path: String, written: String, folder: String) -> String? {
        problem(running: path, written: written, folder: folder) ?? notAnApp(path)
    }

    /// Why the program at `path` (written as `written`, relative to `folder`) cannot run; nil
    /// when it is an executable regular file, a script or a compiled program alike: a hook's
    /// program may be an interpreter (`/bin/sh ./clean.sh`) or any program a team built.
    static func problem(running path: String, written: String, folder: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return missing(path, written: written, folder: folder) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return "\(path) is a folder, not a program"
        default: return "\(path) is not a regular file"
        }
        guard access(path, X_OK) == 0 else { return "\(path) is not executable (chmod +x \(shellWord(path)))" }
        return nil
    }

    /// Why the file at `path` is no Info.plist MSAL could read; nil when it is one.
    static func problem(readingInfoPlist path: String, written: String, folder: String) -> String? {
        guard FileManager.default.fileExists(atPath: path) else {
            return missing(path, written: written, folder: folder)
        }
        do {
            _ = try InfoPlist.read(path)
            return nil
        } catch {
            return "\(path): \(error)"
        }
    }

    /// A compiled program (ELF) that does not serve the app interface is no app of a device: it
    /// would never answer the runner. The interface's name is in every program built on the
    /// device host, as in `sdlab-app`. A script may be a wrapper that starts one, so it passes.
    static func notAnApp(_ path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return "\(path) cannot be read" }
        defer { try? file.close() }
        guard file.readData(ofLength: 4) == Data([0x7f, 0x45, 0x4c, 0x46]) else { return nil }
        guard FileSearch.file(path, contains: Array(AppBus.interface.utf8)) == false else { return nil }
        return "\(path) is a program that serves no \(AppBus.interface): build it on the device host"
            + " (DeviceHost or UIKit's @main, Docs/your-app.md)"
    }

    /// No such file: says where a relative path starts and, when it names a file from a folder
    /// above (a path written for the package's root, such as `.build/debug/app`), how to reach it.
    static func missing(_ path: String, written: String, folder: String) -> String {
        let message = "no file at \(path)"
        guard !written.hasPrefix("/") else { return message }
        let plain = written.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        var above = folder, ups = ""
        while above != "/" {
            above = absolute("..", in: above)
            ups += "../"
            if FileManager.default.fileExists(atPath: absolute(written, in: above)) {
                return message + " (a relative path starts at the scenario file's folder: \(ups + plain)?)"
            }
        }
        return message + " (a relative path starts at the scenario file's folder)"
    }
}
