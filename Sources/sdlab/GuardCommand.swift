import ArgumentParser
import DeviceProcesses
import Foundation

struct GuardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guard",
        abstract: "End a device once whoever started it is gone (started by `run`, `fuzz`, `bench` and `device up`).",
        discussion: """
            Reads its stdin, a pipe whose other end belongs to --owner, the process that started \
            the device: a byte says the owner stopped the device itself; the end of the pipe \
            without one says the owner is gone, even by SIGKILL. Meanwhile it notes the owner's \
            descendants every 100 ms or so. Once the owner is gone it stops (SIGSTOP), then kills \
            (SIGKILL) every one of them still alive, every process whose command line names \
            --folder, every process a cleanup hook of the folder started (by its environment), \
            and their descendants: nothing of the device is left behind.
            """,
        shouldDisplay: false
    )

    @Option(help: "The PID of the process that started the device (this guard's parent).")
    var owner: Int32

    @Option(help: "The device's run folder.")
    var folder: String

    func run() throws {
        TerminationSignals.install()  // a Ctrl-C to the group must not end the guard first
        DeviceGuard(owner: owner, folder: folder).watch(STDIN_FILENO)
    }
}
