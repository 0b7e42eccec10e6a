import DeviceContract
import RunResults
import SharedDevice

/// What must hold in every run, whatever its steps (read from the merged trace): the
/// generation never goes back, no check gives two callbacks of one kind (Workspace ONE:
/// at most one `wipe`, `user-changed` and `initial-check` per opportunity, Docs/behaviour.md §6),
/// and no app writes outside its container (Docs/your-app.md: the sandbox refuses it).
enum DeviceInvariants {
    typealias Violation = (rule: DeviceRule, process: String, detail: String)

    static func violations(in events: [TraceEvent]) -> [Violation] {
        generationGoesBack(in: events) + repeatedCallbacks(in: events) + writesOutside(in: events)
    }

    /// A write the fence refused names the place it would have changed; a call refused as such
    /// (the host's name, a device node, a call no app makes) names why.
    private static func writesOutside(in events: [TraceEvent]) -> [Violation] {
        events.filter { $0.is(.writeRefused) }.map { event in
            let said =
                if let path = event[.path] {
                    "\(event.proc) tried to write outside its container: \(place(path, event[.access])) (\(call(of: event)), refused)"
                } else {
                    "\(event.proc) tried \(call(of: event)) (refused): \(event[.reason] ?? "?")"
                }
            return (.writesStayInContainer, event.proc, said)
        }
    }

    /// Where a write would have landed. The kernel's Landlock names the file written, or for a
    /// file made or removed, the folder it is in.
    private static func place(_ path: String, _ access: String?) -> String {
        switch access {
        case "make_reg": "a new file in \(path)"
        case "make_dir": "a new folder in \(path)"
        case "make_sym": "a new link in \(path)"
        case "make_sock": "a new socket in \(path)"
        case "make_fifo": "a new FIFO in \(path)"
        case "remove_file", "remove_dir": "a removal in \(path)"
        case "refer": "a rename or link into or out of \(path)"
        default: path
        }
    }

    /// The call, and who made it when that was not the app itself (a child it started).
    private static func call(of event: TraceEvent) -> String {
        let call = event[.call] ?? "?"
        return event[.command].map { "\(call) by \($0)" } ?? call
    }

    private static func generationGoesBack(in events: [TraceEvent]) -> [Violation] {
        var highest: UInt64 = 0
        var found: [Violation] = []
        for event in events where event.proc == "hub" && event.is(.sessionChanged) {
            guard let generation = event.integer(.generation, as: UInt64.self) else { continue }
            if generation < highest {
                found.append(
                    (
                        .generationNeverGoesBack, event.proc,
                        "the hub's generation went back from \(highest) to \(generation)"
                    ))
            }
            highest = max(highest, generation)
        }
        return found
    }

    private static func repeatedCallbacks(in events: [TraceEvent]) -> [Violation] {
        var kindsThisCheck: [String: Set<String>] = [:]
        var found: [Violation] = []
        for event in events where event.proc != "hub" {
            switch event.name {
            case .checkStarted, .launched:
                kindsThisCheck[event.proc] = []
            case .callback:
                guard let name = event[.name] else { continue }
                let kind = SDKCallback(text: name)?.kind.rawValue ?? name
                if kindsThisCheck[event.proc, default: []].insert(kind).inserted == false {
                    found.append(
                        (.oneCallbackOfAKindPerCheck, event.proc, "\(event.proc) got a second \(kind) in one check"))
                }
            default:
                break
            }
        }
        return found
    }
}
