import SharedDevice
import Yams

/// How the reader's messages show the callbacks an app can get (SharedDevice's `SDKCallback`):
/// an expected callback must be one of them, or it could never match.
extension SDKCallback.Form {
    /// The errors of Workspace ONE's initial check.
    static let errors = [WorkspaceOneSessionRule.notCheckedOutError, WorkspaceOneSessionRule.hubUnreachableError]

    /// As messages show it: `current-account(A,B)`, `initial-check(ERROR)`.
    var shown: String {
        guard !arguments.isEmpty else { return kind.rawValue }
        var users = ["A", "B"].makeIterator()
        return kind.rawValue + "("
            + arguments.map { $0 == .user ? users.next() ?? "A" : "ERROR" }.joined(separator: ",") + ")"
    }
}

extension SDKKind {
    /// `a ws1 app`, `an msal app`.
    var anApp: String { "\(self == .ws1 ? "a" : "an") \(rawValue) app" }
}

extension Reader {
    /// The SDKs of the apps the targets cover (apps, or a group's apps), each once, in app order.
    func sdks(of targets: [ExpectTarget]) -> [SDKKind] {
        var kinds: [SDKKind] = []
        for target in targets {
            let (names, group): ([String], ExpectTarget.AppGroup) =
                switch target {
                case .group(let group): (appOrder, group)
                case .app(let name): ([name], .all)
                case .hub: ([], .all)
                }
            for case .some(.some(let app)) in names.map({ apps[$0] })
            where group.covers(app.sdk) && !kinds.contains(app.sdk) {
                kinds.append(app.sdk)
            }
        }
        return kinds
    }

    /// Whether every SDK of `sdks` makes the callback `text` (its users declared); else reports why.
    mutating func isCallback(_ text: String, at node: Node, sdks: [SDKKind]) -> Bool {
        let callback = SDKCallback(text: text)
        for sdk in sdks {
            let forms = SDKCallback.forms(of: sdk)
            guard let callback, forms.contains(callback.form) else {
                let expected = forms.map(\.shown).joined(separator: ", ")
                report(
                    node, "callbacks: unknown callback '\(Self.shown(text))' for \(sdk.anApp) (expected \(expected))")
                return false
            }
            if let user = callback.users.first(where: { users[$0] == nil }) {
                report(
                    node,
                    "callbacks: unknown user '\(Self.shown(user))' in '\(Self.shown(text))' "
                        + "(the users are \(userOrder.joined(separator: ", ")); none for no user)")
                return false
            }
            if let error = callback.error, !SDKCallback.Form.errors.contains(error) {
                report(
                    node,
                    "callbacks: unknown error '\(Self.shown(error))' in '\(Self.shown(text))' "
                        + "(expected \(SDKCallback.Form.errors.joined(separator: " or ")))")
                return false
            }
        }
        return true
    }
}
