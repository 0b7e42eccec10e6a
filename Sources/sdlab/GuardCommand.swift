import ArgumentParser
import DeviceProcesses
import Foundation

struct GuardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guard",
        abstract: "Stop a device's bus once whoever started it is gone (started by `run` and `device up`).",
        discussion: """
            Waits until its stdin reaches end of file — the pipe's other end belongs to the \
            process that started the device, so this happens when that process exits, even by \
            SIGKILL — then stops the process --pid if its command line still contains --match, and \
            continues every process of the run folder (a suspended app). Without their bus the hub \
            and the apps end by themselves, so nothing is left behind.
            """,
        shouldDisplay: false
    )

    @Option(help: "The bus's PID.")
    var pid: Int32

    @Option(help: "Text its command line must contain (the run folder), so a reused PID is left alone.")
    var match: String

    func run() throws {
        TerminationSignals.install()  // a Ctrl-C to the group must not end the guard first
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
        }
        if let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
            String(decoding: line, as: UTF8.self).contains(match)
        {
            ChildProcess(pid: pid).stop(grace: .seconds(2))
        }
        // A suspended app (SIGSTOP) cannot notice its bus is gone: continued, it does, and ends.
        for process in LiveProcesses.mentioning(match) where process.pid != getpid() { kill(process.pid, SIGCONT) }
    }
}
