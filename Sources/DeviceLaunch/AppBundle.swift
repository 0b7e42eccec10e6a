import DeviceProcesses
import Foundation

/// An app's bundle, as iOS runs an app from one: a folder NAME.app holding the app's executable
/// and its Info.plist, so that `Bundle.main` answers as on iOS (`bundleIdentifier`,
/// `infoDictionary`, `bundlePath`). Linux's Foundation finds the main bundle from the path the
/// process was started by, so the runner starts the executable from inside the bundle: a hard
/// link to it (a copy, made once per run, where the run's folder is on another file system).
///
/// The Info.plist is the scenario's `info_plist:`; without one, it says `dev.sdlab.NAME`, the
/// app's name and its executable. An executable with an Info.plist beside it is a bundle
/// already and runs where it is, as does a launcher script (whose own folder its lines may use).
enum AppBundle {
    /// The path to start `program` by, for the app `spec`, in the run folder `directory`.
    static func executable(of program: String, for spec: AppSpec, in directory: String) throws(LaunchError)
        -> String
    {
        let besideProgram = (program as NSString).deletingLastPathComponent + "/Info.plist"
        if !isELF(program) || (spec.infoPlist == nil && FileManager.default.fileExists(atPath: besideProgram)) {
            return program
        }
        let bundle = RunFolder.bundle(of: spec.name, in: directory)
        let name = (program as NSString).lastPathComponent
        let inBundle = bundle + "/" + name
        do {
            try DevicePaths.prepareDirectory(RunFolder.bundles(in: directory))
            try? FileManager.default.removeItem(atPath: bundle)  // from an earlier launch of the app
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: false)
            try infoPlist(of: spec, executable: name).write(to: URL(fileURLWithPath: bundle + "/Info.plist"))
            try link(program, at: inBundle, in: directory)
        } catch {
            throw LaunchError("cannot make the bundle of the app \(spec.name) in \(bundle): \(error)")
        }
        return inBundle
    }

    /// The scenario's Info.plist, or the one made for an app without one.
    private static func infoPlist(of spec: AppSpec, executable: String) throws -> Data {
        if let given = spec.infoPlist { return try Data(contentsOf: URL(fileURLWithPath: given)) }
        let made: [String: String] = [
            "CFBundleIdentifier": "dev.sdlab." + spec.name, "CFBundleName": spec.name,
            "CFBundleExecutable": executable, "CFBundlePackageType": "APPL",
        ]
        return try PropertyListSerialization.data(fromPropertyList: made, format: .xml, options: 0)
    }

    /// A hard link to `program` at `path`; across file systems, to one copy of it the run
    /// makes in its bundles folder (so a fleet of one program is copied once).
    private static func link(_ program: String, at path: String, in directory: String) throws {
        if Foundation.link(program, path) == 0 { return }
        guard errno == EXDEV else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var status = stat()
        guard stat(program, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let copy = RunFolder.bundles(in: directory) + "/.program-\(status.st_dev)-\(status.st_ino)"
        if !FileManager.default.fileExists(atPath: copy) {
            // Copied beside, then renamed: an app launched at the same time sees all of it or none.
            let partial = copy + "-\(getpid())-\(UUID().uuidString)"
            try FileManager.default.copyItem(atPath: program, toPath: partial)
            guard rename(partial, copy) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        guard Foundation.link(copy, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Whether `path` is an ELF file (a program, not a script).
    private static func isELF(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x7F, 0x45, 0x4C, 0x46])
    }
}
