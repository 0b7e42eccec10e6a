import Crypto
import DBusKit
import DeviceProcesses
import Foundation
import SharedDevice
import Synchronization

/// The hub's state and the one way to change it: a change counts once it is saved, so a
/// caller that got a reply never loses it to a crash.
final class HubCore: Sendable {
    let directory: ConsoleDirectory
    let trace: TraceLog?
    private let model: Mutex<HubModel>
    private let store: StateFile?

    init(_ state: HubState, store: StateFile?, trace: TraceLog?) {
        directory = state.directory
        model = Mutex(state.model)
        self.store = store
        self.trace = trace
    }

    /// The state as it is now (a copy).
    var snapshot: HubModel { model.withLock { $0 } }

    func change<T: Sendable>(_ body: (inout HubModel) throws(DeviceError) -> T) throws(DBusError) -> T {
        try model.withLock { (current) throws(DBusError) -> T in
            var next = current
            let result = try answering { () throws(DeviceError) in try body(&next) }
            if next != current {
                do {
                    try store?.save(HubState(directory: directory, model: next))
                } catch {
                    throw DBusError.failed("\(error)")
                }
                if next.session != current.session {
                    // t0 of the change: committed, not yet posted or answered.
                    trace?.record("session-changed", ["state": .string(next.session.state.rawValue),
                                                      "user": .user(next.session.user),
                                                      "generation": .uint(next.session.generation)])
                }
                current = next
            }
            return result
        }
    }
}

/// Runs a domain decision, answering its refusal as the bus carries it.
func answering<T>(_ body: () throws(DeviceError) -> T) throws(DBusError) -> T {
    do throws(DeviceError) { return try body() } catch { throw error.dbusError }
}

/// The hub's object on the bus: every decision is the domain's, this only translates
/// between D-Bus values and `SharedDevice`. Methods that hash a password or save the state
/// run as tasks, never on the connection's own thread.
final class HubService: Sendable {
    private let core: HubCore

    init(_ core: HubCore) { self.core = core }

    var interfaces: [DBusInterface] { [hub1, broker1, keyService1, notify1] }

    // MARK: dev.sdlab.Hub1

    private var hub1: DBusInterface {
        DBusInterface(DeviceBus.hubInterface, methods: [
            .init("Enroll", in: credentials) { [core] call async throws in
                let user = Self.authenticate(call, core)
                try core.change { (hub) throws(DeviceError) in try hub.enroll(as: user) }
                return []
            },
            .init("CheckOut", in: credentials, out: [.init("userIdentifier", "s")]) { [core] call async throws in
                let user = Self.authenticate(call, core)
                try core.post(core.change { (hub) throws(DeviceError) in try hub.checkOut(as: user) }, on: call.connection)
                return [.string(user?.userIdentifier ?? "")]
            },
            .init("CheckIn") { [core] call async throws in
                try core.post(core.change { (hub) throws(DeviceError) in try hub.checkIn() }, on: call.connection)
                return []
            },
            .init("GetSession", out: [.init("session", "(sst)")]) { [core] _ in
                let session = core.snapshot.session
                return [.structure([.string(session.state.rawValue), .string(session.user ?? ""), .uint64(session.generation)])]
            },
            .init("GetUserInfo", out: [.init("info", "a{sv}")]) { [core] _ in
                let hub = core.snapshot
                return [Self.userInfo(try answering { () throws(DeviceError) in try hub.userInfo() })]
            },
            .init("SetOnline", in: [.init("online", "b")]) { [core] call async throws in
                let online = call.arguments[0].bool!
                try core.change { $0.setOnline(online) }
                return []
            },
            .init("Lock") { [core] _ async throws in
                try core.change { $0.lock() }
                return []
            },
            .init("Unlock", in: credentials) { [core] call async throws in
                let user = Self.authenticate(call, core)
                _ = try core.change { (hub) throws(DeviceError) in try hub.unlock(as: user) }
                return []
            },
            .init("EnterpriseWipe") { [core] call async throws in
                try core.post(core.change { (hub) throws(DeviceError) in try hub.enterpriseWipe() }, on: call.connection)
                return []
            },
        ], properties: [
            property("State", "s") { .string($0.session.state.rawValue) },
            property("Shared", "b") { .bool($0.isShared) },
            property("Online", "b") { .bool($0.online) },
            property("Locked", "b") { .bool($0.locked) },
            property("Generation", "t") { .uint64($0.session.generation) },
            property("Foreground", "s") { .string($0.foreground.rawValue) },
        ])
    }

    private var credentials: [DBusInterface.Argument] { [.init("user", "s"), .init("password", "s")] }

    private func property(_ name: String, _ type: Signature, _ value: @escaping @Sendable (HubModel) -> DBusValue) -> DBusInterface.Property {
        .init(name, type) { [core] in value(core.snapshot) }
    }

    private static func userInfo(_ user: DirectoryUser) -> DBusValue {
        .vardict([
            "userName": .string(user.name), "groupID": .string(user.groupID), "email": .string(user.email),
            "firstName": .string(user.firstName), "lastName": .string(user.lastName),
            "domain": .string(user.domain), "userIdentifier": .string(user.userIdentifier),
        ])
    }

    // MARK: dev.sdlab.Broker1

    private var broker1: DBusInterface {
        DBusInterface(DeviceBus.brokerInterface, methods: [
            .init("GetDeviceInformation", out: [.init("information", "a{sv}")]) { [core] _ in
                let hub = core.snapshot
                return [.vardict([
                    "deviceMode": .string(hub.deviceMode), "generation": .uint64(hub.session.generation),
                    "passcodePolicy": .bool(hub.policy.passcode), "passcodeSet": .bool(hub.passcodeSet),
                ])]
            },
            .init("GetAccounts", out: [.init("accounts", "aa{sv}")]) { [core] _ in
                let accounts = core.snapshot.currentAccount.map { [Self.account($0)] } ?? []
                return [.array(element: "a{sv}", accounts)]
            },
            .init("SignIn", in: credentials + [.init("client", "s")], out: [.init("account", "a{sv}")]) { [core] call async throws in
                let user = Self.authenticate(call, core)
                try core.post(core.change { (hub) throws(DeviceError) in try hub.signIn(as: user) }, on: call.connection)
                return [Self.account(user?.name ?? "")]
            },
            .init("SignOut", in: [.init("homeAccountId", "s"), .init("client", "s")]) { [core] call async throws in
                let id = call.arguments[0].string!
                try core.post(core.change { (hub) throws(DeviceError) in try hub.signOut(homeAccountID: id) }, on: call.connection)
                return []
            },
            // The account removed outside any app (a settings page): the session ends, no post.
            .init("RemoveAccount") { [core] _ async throws in
                try core.change { (hub) throws(DeviceError) in try hub.removeAccount() }
                return []
            },
            .init("AcquireTokenSilent", in: [.init("homeAccountId", "s"), .init("client", "s")],
                  out: [.init("token", "(st)")]) { [core] call in
                let id = call.arguments[0].string!
                let hub = core.snapshot
                let token = try answering { () throws(DeviceError) in try hub.acquireTokenSilent(homeAccountID: id) }
                return [.structure([.string(token.token), .uint64(Self.tokenExpiry())])]
            },
        ])
    }

    private static func account(_ user: String) -> DBusValue {
        .vardict(["homeAccountId": .string(HubModel.homeAccountID(of: user)), "username": .string(user),
                  "environment": .string(HubModel.environment)])
    }

    /// An hour from now, in seconds since the epoch, as a token's expiry is written.
    private static func tokenExpiry() -> UInt64 { UInt64(Date().timeIntervalSince1970) + 3600 }

    // MARK: dev.sdlab.KeyService1

    private var keyService1: DBusInterface {
        DBusInterface(DeviceBus.keyServiceInterface, methods: [
            .init("GetUserKey", out: [.init("key", "(say)")]) { [core] _ async throws in
                let (user, key) = try core.change { (hub) throws(DeviceError) in
                    try hub.externalKey { SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) } }
                }
                return [.structure([.string(user), .array(element: "y", key.map { .byte($0) })])]
            },
        ])
    }

    // MARK: dev.sdlab.Notify1

    private var notify1: DBusInterface {
        DBusInterface(DeviceBus.notifyInterface, methods: [
            .init("SetState", in: [.init("name", "s"), .init("state", "t")]) { [core] call async throws in
                let name = try Self.notifyName(call.arguments[0])
                let value = call.arguments[1].uint64!
                try core.change { $0.setNotifyState(of: name, to: value) }
                return []
            },
            .init("GetState", in: [.init("name", "s")], out: [.init("state", "t")]) { [core] call in
                let name = try Self.notifyName(call.arguments[0])
                return [.uint64(core.snapshot.notify.state(of: name))]
            },
        ], signals: [
            .init("Posted", [.init("name", "s")]),
        ])
    }

    private static func notifyName(_ value: DBusValue) throws -> String {
        guard let name = value.string, NotifyCenter.isValidName(name) else {
            throw DBusError.invalidArgs("a notification name is 1 to 255 bytes without NUL")
        }
        return name
    }

    // MARK: -

    /// The directory's user for the call's first two arguments, or nil for any mismatch.
    private static func authenticate(_ call: DBusInterface.Call, _ core: HubCore) -> DirectoryUser? {
        core.directory.authenticate(call.arguments[0].string!, call.arguments[1].string!)
    }

}

extension HubCore {
    /// Carries out the posts a change asks for; the notify state is already set and saved.
    func post(_ effects: [HubModel.Effect], on connection: Connection) throws {
        for case .post(let name, let state) in effects {
            try DeviceBus.post(name, on: connection)
            trace?.record("posted", ["name": .string(name), "state": .uint(state)])
        }
    }
}
