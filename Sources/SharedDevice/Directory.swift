/// A user of the management console's directory (Docs/behaviour.md §1, the scenario's `users`). The
/// password is not here: only the hub's credential store holds (a hash of) it.
public struct DirectoryUser: Equatable, Sendable, Codable {
    public enum Role: String, Sendable, Codable { case staging, user }
    /// What a staging user's enrollment makes of the device.
    public enum Staging: String, Sendable, Codable {
        /// Shared: any user may check out and in.
        case multiUser = "multi-user"
        /// Assigned for good to the first user who checks out; not shared.
        case singleUser = "single-user"
    }

    public var name: String
    public var role: Role
    public var staging: Staging
    public var firstName: String
    public var lastName: String
    public var email: String
    public var domain: String
    public var groupID: String

    public init(
        name: String, role: Role = .user, staging: Staging = .multiUser, firstName: String? = nil,
        lastName: String = "", email: String? = nil, domain: String = "sdlab.test", groupID: String = "frontline"
    ) {
        self.name = name
        self.role = role
        self.staging = staging
        self.firstName = firstName ?? name
        self.lastName = lastName
        self.email = email ?? "\(name)@\(domain)"
        self.domain = domain
        self.groupID = groupID
    }

    /// The stable identifier the console gives the user (returned by CheckOut).
    public var userIdentifier: String { "\(domain)/\(name)" }
}
