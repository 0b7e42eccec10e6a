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

extension DirectoryUser {
    /// A user name becomes part of file names (a user's folder in a container, a canary): ASCII
    /// letters, digits, '.', '_' or '-', starting with a letter or digit (so never `..`), at most
    /// `maxNameLength` long, and not `none` (which means no user). Names that come over the
    /// bus are checked against it where they enter.
    public static func isValidName(_ name: String) -> Bool {
        guard let head = name.unicodeScalars.first, isNameStart(head), name.utf8.count <= maxNameLength else {
            return false
        }
        return name != "none" && name.unicodeScalars.allSatisfy(isNameCharacter)
    }

    public static let maxNameLength = 128

    public static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || scalar == "." || scalar == "_" || scalar == "-"
    }

    public static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
