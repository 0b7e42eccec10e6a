/// Why an app checks its account: the mechanism a timing report names.
public enum CheckTrigger: String, Sendable, Codable {
    case launch, foreground, signal
    /// Continued after a suspension: MSAL asks apps to call `getCurrentAccount` whenever they
    /// resume, since posts to a stopped app may have been dropped and a change may have posted
    /// nothing (an account removed in Settings).
    case resume
    /// After the app's own sign-in or sign-out.
    case signIn = "sign-in", signOut = "sign-out"

    /// The mechanism a timing report names: an app's own sign-in or sign-out counts as a
    /// return to the foreground (the user is in the app).
    public var mechanism: Mechanism {
        switch self {
        case .launch: .launch
        case .foreground, .signIn, .signOut: .foreground
        case .signal: .signal
        case .resume: .resume
        }
    }
}
