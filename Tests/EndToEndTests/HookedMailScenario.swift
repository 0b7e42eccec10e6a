/// A scenario of one background MSAL app, `mail`, whose cleanup is the shell `hook` (its lines
/// folded into one command): a worker checks out, `mail` writes one record and the worker checks
/// in, then the steps `after` (lines of the `steps:` list, nested lines indented further).
func hookedMailScenario(named name: String? = nil, hook: [String], then after: [String]) -> String {
    let title = name.map { ["name: \($0)"] } ?? []
    let lines =
        title + ["apps:", "  - name: mail", "    sdk: msal", "    background: true", "    cleanup:", "      hook: >-"]
        + hook.map { "        " + $0 }
        + ["steps:", "  - enroll: stage", "  - checkout: cou1", "  - launch: mail"]
        + ["  - write: {app: mail, kind: plain, count: 1}", "  - checkin"]
        + after.map { "  " + $0 }
    return lines.joined(separator: "\n") + "\n"
}

/// A hook that runs `first` in the mail app's documents (with `$steps`, 500 folder names), then
/// leaves a folder `rounds` × 500 + 31 deep, `deep`, holding whatever `first` moved there, and
/// then runs `last`. The fence's watch cannot resolve a path past PATH_MAX, so the tree is built
/// from the bottom up: each round makes 500 folders under a new top and moves the tree beneath.
func nestingHook(_ first: String, rounds: Int, then last: String? = nil) -> [String] {
    [
        #"cd "$SDLAB_CONTAINER/documents" &&"#,
        #"steps=$(printf 'd/%.0s' $(seq 500)) &&"#,
        #"mkdir -p "deep/$steps" && \#(first) &&"#,
        "for round in $(seq \(rounds)); do",
        #"mkdir -p "up/$steps" && mv deep "up/$steps" && mv up deep || exit 1; done"#
            + (last.map { " && \($0)" } ?? ""),
    ]
}
