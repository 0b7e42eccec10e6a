import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import SharedDevice

/// Where a run folder keeps what its processes write.
public enum RunFolder {
    public static func container(of app: String, in directory: String) -> String { directory + "/containers/" + app }
    public static func trace(of app: String, in directory: String) -> String { directory + "/trace/app-\(app).jsonl" }
    public static func hubTrace(in directory: String) -> String { directory + "/trace/hub.jsonl" }
    public static func log(of app: String, in directory: String) -> String { directory + "/logs/app-\(app).log" }

    /// Creates the folders (0700).
    public static func prepare(_ directory: String) throws(LaunchError) {
        for folder in ["containers", "trace", "logs"] { try DevicePaths.prepareDirectory(directory + "/" + folder) }
    }
}
