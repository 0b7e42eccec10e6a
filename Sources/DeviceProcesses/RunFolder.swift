/// Where a device keeps what its processes write, in its run folder: each name of the folder is
/// spelled here only. It lives here rather than with the launcher, since the bus daemon, the
/// guard and `LiveProcesses` below it need the names too.
public enum RunFolder {
    // MARK: The device: its bus and its hub

    /// The bus's socket.
    public static func busSocket(in directory: String) -> String { directory + "/bus" }
    public static func busLog(in directory: String) -> String { directory + "/dbus-daemon.log" }
    public static func hubLog(in directory: String) -> String { directory + "/hub.log" }
    /// What the hub starts from when there is no saved state (`HubSetup`).
    public static func hubSetup(in directory: String) -> String { directory + "/hub-setup.json" }
    /// The hub's saved state: a device started again in the same folder carries on from it.
    public static func hubState(in directory: String) -> String { directory + "/hub-state.json" }
    /// The file the hub records its unique bus name in.
    public static func hubName(in directory: String) -> String { directory + "/hub-name" }
    /// The PID records `device down`, another process, stops the device by.
    public static func busPID(in directory: String) -> String { directory + "/dbus-daemon.pid" }
    public static func hubPID(in directory: String) -> String { directory + "/hub.pid" }
    /// Where the runner arms the hub's crash at a point of the next change (`hub_crash:`).
    public static func hubCrashPoint(in directory: String) -> String { directory + "/hub-crash-at" }
    /// Held by whoever starts a device in the folder, so that only one does.
    public static func lock(in directory: String) -> String { directory + "/device.lock" }
    /// The processes the device's guard has noted as the run's (`DeviceGuard`).
    public static func guardNotes(in directory: String) -> String { directory + "/guard-noted" }

    // MARK: The apps

    /// The apps' containers, one folder each, named after the app.
    public static func containers(in directory: String) -> String { directory + "/containers" }
    public static func container(of app: String, in directory: String) -> String {
        containers(in: directory) + "/" + app
    }
    /// The trace files of the hub and the apps (`TraceEvent`).
    public static func traceFolder(in directory: String) -> String { directory + "/trace" }
    public static func trace(of app: String, in directory: String) -> String {
        traceFolder(in: directory) + "/app-\(app).jsonl"
    }
    public static func hubTrace(in directory: String) -> String { traceFolder(in: directory) + "/hub.jsonl" }
    /// The writes the fence's watch refused to the app launched as `pid` and what it started.
    public static func fenceTrace(of app: String, pid: Int32, in directory: String) -> String {
        traceFolder(in: directory) + "/fence-\(app)-\(pid).jsonl"
    }
    /// The apps' bundles, as iOS runs an app from one (`AppBundle`): NAME.app each.
    public static func bundles(in directory: String) -> String { directory + "/bundles" }
    public static func bundle(of app: String, in directory: String) -> String {
        bundles(in: directory) + "/" + app + ".app"
    }
    /// What the apps print.
    public static func logs(in directory: String) -> String { directory + "/logs" }
    public static func log(of app: String, in directory: String) -> String { logs(in: directory) + "/app-\(app).log" }

    /// Creates the folders (0700).
    public static func prepare(_ directory: String) throws(LaunchError) {
        for folder in [containers(in: directory), traceFolder(in: directory), logs(in: directory)] {
            try DevicePaths.prepareDirectory(folder)
        }
    }
}
