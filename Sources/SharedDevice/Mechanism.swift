/// How an app learned of a session change (Docs/behaviour.md §9): the trigger of its first
/// check after the change that was an opportunity for its SDK and succeeded; `none` while it
/// has not. The timing report and a scenario's `mechanism:` say it with these names.
public enum Mechanism: String, Sendable, Equatable, CaseIterable {
    case signal, launch, foreground, resume, none
}
