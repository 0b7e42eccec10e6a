import DBusKit
import SharedDevice

/// The shapes values take on the bus (Bus/*.xml), each written and read here, so the hub, the
/// SDKs, the apps and the runner agree on them.
extension Session {
    /// `GetSession`'s `(sst)`: state, user or `""`, generation.
    public var wireValue: DBusValue { .structure([.string(state.rawValue), .string(user ?? ""), .uint64(generation)]) }

    public init?(wire value: DBusValue?) {
        guard let fields = value?.fields, fields.count == 3,
            let state = fields[0].string.flatMap(Session.State.init(rawValue:)), let user = fields[1].string,
            let generation = fields[2].uint64
        else { return nil }
        // Nothing from the bus becomes a path unchecked: a user name is one.
        guard user.isEmpty || DirectoryUser.isValidName(user) else { return nil }
        self.init(state: state, user: user.isEmpty ? nil : user, generation: generation)
    }
}

extension BrokerAccount {
    /// An account of `GetAccounts` and `SignIn`: `homeAccountId`, `username`, `environment`.
    public var wireValue: DBusValue {
        .vardict([
            "homeAccountId": .string(homeAccountID), "username": .string(username),
            "environment": .string(HubModel.environment),
        ])
    }

    public init?(wire value: DBusValue?) {
        guard let fields = value?.stringKeyed, let id = fields["homeAccountId"]?.variant?.string,
            let username = fields["username"]?.variant?.string, DirectoryUser.isValidName(username)
        else { return nil }
        self.init(homeAccountID: id, username: username)
    }
}

extension DirectoryUser {
    /// `GetUserInfo`'s identity: userName, groupID, email, firstName, lastName, domain, userIdentifier.
    public var wireValue: DBusValue {
        .vardict([
            "userName": .string(name), "groupID": .string(groupID), "email": .string(email),
            "firstName": .string(firstName), "lastName": .string(lastName),
            "domain": .string(domain), "userIdentifier": .string(userIdentifier),
        ])
    }

    /// The identity's fields as text.
    public static func fields(wire value: DBusValue?) -> [String: String] {
        (value?.stringKeyed ?? [:]).compactMapValues { $0.variant?.string }
    }
}

/// What the broker says about the device (`GetDeviceInformation`).
public struct DeviceInformation: Equatable, Sendable {
    /// `shared` or `personal`.
    public var deviceMode: String
    public var generation: UInt64 = 0
    public var passcodePolicy = false
    public var passcodeSet = false

    public init(deviceMode: String, generation: UInt64 = 0, passcodePolicy: Bool = false, passcodeSet: Bool = false) {
        self.deviceMode = deviceMode
        self.generation = generation
        self.passcodePolicy = passcodePolicy
        self.passcodeSet = passcodeSet
    }

    public var isSharedDevice: Bool { deviceMode == "shared" }

    public var wireValue: DBusValue {
        .vardict([
            "deviceMode": .string(deviceMode), "generation": .uint64(generation),
            "passcodePolicy": .bool(passcodePolicy), "passcodeSet": .bool(passcodeSet),
        ])
    }

    public init(wire value: DBusValue?) {
        let fields = value?.stringKeyed ?? [:]
        self.init(
            deviceMode: fields["deviceMode"]?.variant?.string ?? "personal",
            generation: fields["generation"]?.variant?.uint64 ?? 0,
            passcodePolicy: fields["passcodePolicy"]?.variant?.bool ?? false,
            passcodeSet: fields["passcodeSet"]?.variant?.bool ?? false)
    }
}

/// `GetUserKey`'s `(say)`: the current user and their 256-bit key of `external` records.
public struct UserKey: Equatable, Sendable {
    public var user: String
    public var key: [UInt8]

    public init(user: String, key: [UInt8]) {
        self.user = user
        self.key = key
    }

    public var wireValue: DBusValue { .structure([.string(user), .array(element: "y", key.map { .byte($0) })]) }

    public init?(wire value: DBusValue?) {
        guard let fields = value?.fields, fields.count == 2, let user = fields[0].string,
            let key = fields[1].items?.compactMap(\.byte), key.count == 32
        else { return nil }
        self.init(user: user, key: key)
    }
}

/// What an app shows and believes (`dev.sdlab.App1.Snapshot`, `a{sv}`).
public struct AppSnapshot: Sendable, Equatable {
    public var name = ""
    public var sdk = ""
    public var pid: Int32 = 0
    public var foreground = false
    public var blocked = false
    public var user: String?
    public var previous: String?
    public var callbacks: [String] = []
    public var error: String?
    /// The canaries of the records the app displays.
    public var displayed: [String] = []
    public var preferencesApplied = false
    public var checks = 0
    public var cleanupFailures: [String] = []

    public init() {}

    /// Exposed: the canaries of anyone but `currentUser` in what the app displays.
    public func exposed(currentUser: String?) -> [Canary] {
        Canary.all(in: displayed.joined(separator: " ")[...]).filter { $0.user != currentUser }
    }

    public var wireValue: DBusValue {
        .vardict([
            "name": .string(name), "sdk": .string(sdk), "pid": .int32(pid), "foreground": .bool(foreground),
            "blocked": .bool(blocked), "user": .string(user ?? ""), "previous": .string(previous ?? ""),
            "callbacks": .strings(callbacks), "error": .string(error ?? ""),
            "displayed": .strings(CanaryRuns.items(of: displayed)),
            "preferencesApplied": .bool(preferencesApplied), "checks": .uint32(UInt32(clamping: checks)),
            "cleanupFailures": .strings(cleanupFailures),
        ])
    }

    public init(wire value: DBusValue?) {
        let fields = value?.stringKeyed ?? [:]
        func string(_ key: String) -> String? { fields[key]?.variant?.string.flatMap { $0.isEmpty ? nil : $0 } }
        func strings(_ key: String) -> [String] { fields[key]?.variant?.items?.compactMap(\.string) ?? [] }
        func flag(_ key: String) -> Bool { fields[key]?.variant?.bool ?? false }
        name = string("name") ?? ""
        sdk = string("sdk") ?? ""
        pid = fields["pid"]?.variant?.int32 ?? 0
        foreground = flag("foreground")
        blocked = flag("blocked")
        user = string("user")
        previous = string("previous")
        callbacks = strings("callbacks")
        error = string("error")
        displayed = CanaryRuns.expanded(strings("displayed"))
        preferencesApplied = flag("preferencesApplied")
        checks = Int(fields["checks"]?.variant?.uint32 ?? 0)
        cleanupFailures = strings("cleanupFailures")
    }
}

/// Canaries on the wire (`Snapshot`'s `displayed`, `Write`'s reply): a run of consecutive
/// numbers under one prefix is one item, `PREFIX/FIRST..LAST`, so an app showing 800,000
/// records answers in a few bytes (in full, past 32 MiB, the bus refused the reply).
public enum CanaryRuns {
    /// The canaries as items: a run of consecutive numbers under one prefix is one item.
    public static func items(of canaries: [String]) -> [String] {
        NumberedRuns.of(canaries, numbered: numbered).map { piece in
            switch piece {
            case .unnumbered(let item): item
            case .run(let prefix, let first, let last) where first == last: "\(prefix)\(first)"
            case .run(let prefix, let first, let last): "\(prefix)\(first)..\(last)"
            }
        }
    }

    /// `PREFIX/N` split at its last slash, N in digits as written by a number (no sign, no
    /// leading zero), so an item reads back as exactly the canaries it stands for.
    private static func numbered(_ canary: String) -> (stem: String, number: Int)? {
        let bytes = canary.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let digits = bytes[bytes.index(after: slash)...]
        guard digits.first != UInt8(ascii: "0") || digits.count == 1,
            let number = digits.withContiguousStorageIfAvailable(Canary.decimal) ?? nil
        else { return nil }
        return (String(canary[...slash]), number)
    }

    /// The most canaries one item may stand for when read back: a run is at most what one app
    /// can show, and no item from the bus makes the reader build without bound.
    public static let longestRun = 10_000_000

    /// The canaries of `items(of:)`, one by one again.
    public static func expanded(_ items: [String]) -> [String] {
        items.flatMap { item -> [String] in
            guard let slash = item.lastIndex(of: "/") else { return [item] }
            let bounds = item[item.index(after: slash)...].split(separator: ".", omittingEmptySubsequences: false)
            guard bounds.count == 3, bounds[1].isEmpty, let first = Int(bounds[0]), let last = Int(bounds[2]),
                first <= last, last - first < longestRun
            else { return [item] }
            let prefix = item[...slash]
            return (first...last).map { "\(prefix)\($0)" }
        }
    }
}

/// `dev.sdlab.App1.Write`'s `(su)`: a record kind and a count of 1 to `RecordKind.mostPerWrite`.
public struct WriteRequest: Sendable, Equatable {
    public var kind: RecordKind
    public var count: Int

    /// The request a call carries; a kind that is none or a count out of bounds is `InvalidArgs`.
    public init(wire arguments: [DBusValue]) throws(DBusError) {
        guard let kind = arguments.first?.string.flatMap(RecordKind.init(rawValue:)) else {
            throw DBusError.invalidArgs("kind is one of \(RecordKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let count = arguments.count > 1 ? Int(arguments[1].uint32 ?? 0) : 0
        guard (1...RecordKind.mostPerWrite).contains(count) else {
            throw DBusError.invalidArgs("count is 1 to \(RecordKind.mostPerWrite)")
        }
        self.kind = kind
        self.count = count
    }
}
