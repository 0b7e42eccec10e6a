import SharedDevice
import Yams

/// One callback an SDK makes, as the apps record it (SharedDevice's `MSALClient`,
/// `AndroidMSALClient` and `WorkspaceOneSDK`): an expected callback must be one of these, or
/// it could never match.
struct CallbackForm {
    enum Argument { case user, error }

    var name: String
    var arguments: [Argument]

    static func forms(of sdk: SDKKind) -> [CallbackForm] {
        switch sdk {
        case .msal: [CallbackForm(name: "current-account", arguments: [.user, .user])]
        case .msalAndroid:
            [
                CallbackForm(name: "account-changed", arguments: [.user, .user]),
                CallbackForm(name: "account-loaded", arguments: [.user]),
            ]
        case .ws1:
            [
                CallbackForm(name: "wipe", arguments: []), CallbackForm(name: "user-changed", arguments: []),
                CallbackForm(name: "initial-check", arguments: []),
                CallbackForm(name: "initial-check", arguments: [.error]),
            ]
        }
    }

    /// The errors of Workspace ONE's initial check.
    static let errors = [WorkspaceOneSDK.notCheckedOutError, WorkspaceOneSDK.hubUnreachableError]

    /// As messages show it: `current-account(A,B)`, `initial-check(ERROR)`.
    var shown: String {
        guard !arguments.isEmpty else { return name }
        var users = ["A", "B"].makeIterator()
        return name + "(" + arguments.map { $0 == .user ? users.next() ?? "A" : "ERROR" }.joined(separator: ",") + ")"
    }

    /// `sdk`'s form of `text` and its arguments, if it has one of that name and arity.
    static func match(_ text: String, sdk: SDKKind) -> (form: CallbackForm, arguments: [String])? {
        var name = Substring(text), arguments: [String] = []
        if let open = text.firstIndex(of: "("), text.hasSuffix(")") {
            name = text[..<open]
            arguments = text[text.index(after: open)..<text.index(before: text.endIndex)]
                .split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard let form = forms(of: sdk).first(where: { $0.name == name && $0.arguments.count == arguments.count })
        else { return nil }
        return (form, arguments)
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
        for sdk in sdks {
            guard let (form, arguments) = CallbackForm.match(text, sdk: sdk) else {
                let expected = CallbackForm.forms(of: sdk).map(\.shown).joined(separator: ", ")
                report(
                    node, "callbacks: unknown callback '\(Self.shown(text))' for \(sdk.anApp) (expected \(expected))")
                return false
            }
            for (kind, argument) in zip(form.arguments, arguments) {
                if kind == .user, argument != "none", users[argument] == nil {
                    report(
                        node,
                        "callbacks: unknown user '\(Self.shown(argument))' in '\(Self.shown(text))' "
                            + "(the users are \(userOrder.joined(separator: ", ")); none for no user)")
                    return false
                }
                if kind == .error, !CallbackForm.errors.contains(argument) {
                    report(
                        node,
                        "callbacks: unknown error '\(Self.shown(argument))' in '\(Self.shown(text))' "
                            + "(expected \(CallbackForm.errors.joined(separator: " or ")))")
                    return false
                }
            }
        }
        return true
    }
}
