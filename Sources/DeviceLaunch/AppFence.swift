import CSystem
import DeviceContract
import DeviceProcesses
import Foundation

/// The sandbox's fence as the kernel holds it: every app is started through `sdlab-fence`, which
/// restricts the process with Landlock before it becomes the app (the same process), so that the
/// app, a launcher script and every process they start can write only in the app's container,
/// its trace file and /dev/null. Reads stay free. Docs/hardening.md says what holds where the
/// kernel lacks Landlock or has an older ABI.
public enum AppFence {
    /// The files an app writes outside its container: its trace (which it grows and cuts back)
    /// and /dev/null (a hook's or a shell's `> /dev/null`).
    static let deviceFiles = ["/dev/null"]

    /// The program that holds the fence, beside sdlab.
    static let executableName = "sdlab-fence"

    /// The fence's command line that becomes `executable` with `arguments`. The container and
    /// the trace file exist first: a rule names an existing place.
    static func command(
        _ executable: String, _ arguments: [String], container: String, trace: String, beside sdlab: String
    ) throws(LaunchError) -> (executable: String, arguments: [String]) {
        let fence = try LaunchedApp.builtExecutable(executableName, beside: sdlab, what: executableName)
        try DevicePaths.prepareDirectory(container)
        let file = open(trace, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw LaunchError("cannot create the trace file \(trace): \(errorText())") }
        close(file)
        let files = ([trace] + deviceFiles).flatMap { ["--file", $0] }
        return (fence, ["--folder", container] + files + ["--", executable] + arguments)
    }

    /// What the fence holds on this machine, as `sdlab-fence` decides it: the kernel's Landlock
    /// ABI, lowered by `SDLAB_FENCE_ABI` when set.
    public static func onThisKernel(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> KernelFence {
        var abi = max(0, Int(sdlab_landlock_abi()))
        if let cap = environment["SDLAB_FENCE_ABI"].flatMap(Int.init), cap >= 0, cap < abi { abi = cap }
        return KernelFence(abi: abi)
    }

    /// The Landlock ABI the fence is held with (0: none).
    public struct KernelFence: Sendable, Equatable {
        public let abi: Int

        /// What the kernel does not fence, said for the run's output; nil when it fences every
        /// write (ABI 5 or later).
        public var shortfall: String? {
            switch abi {
            case 0:
                "the kernel has no Landlock here: only the writes an app's own executable makes through"
                    + " the C library are refused outside its container; its children, raw system calls and"
                    + " links are not fenced (Docs/hardening.md)"
            case 1, 2:
                "the kernel's Landlock is ABI \(abi): truncate(2) and ioctl(2) on devices outside an app's"
                    + " container are not fenced (Docs/hardening.md)"
            case 3, 4: "the kernel's Landlock is ABI \(abi): ioctl(2) on devices is not fenced (Docs/hardening.md)"
            default: nil
            }
        }
    }
}
