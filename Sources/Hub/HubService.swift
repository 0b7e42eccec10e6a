import Crypto
import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import SharedDevice
import Synchronization

/// The hub's object on the bus: every decision is the domain's, this only translates
/// between D-Bus values and `SharedDevice`. Methods that hash a password or save the state
/// run as tasks, never on the connection's own thread.
final class HubService: Sendable {
    private let core: HubCore

    init(_ core: HubCore) { self.core = core }

    var interfaces: [DBusInterface] { [hub1, broker1, keyService1, notify1] }

    // MARK: dev.sdlab.Hub1

    private var hub1: DBusInterface {
        DBusInterface(
            HubMethod.interface,
            methods: [
                .init(HubMethod.enroll.rawValue, in: credentials) { [core] call async throws in
                    let user = try Self.authenticate(call, core)
                    try core.change { (hub) throws(DeviceError) in try hub.enroll(as: user) }
                    return []
                },
                .init(HubMethod.checkOut.rawValue, in: credentials, out: [.init("userIdentifier", "s")]) {
                    [core] call async throws in
                    let user = try Self.authenticate(call, core)
                    try core.post(
                        core.change { (hub) throws(DeviceError) in try hub.checkOut(as: user) }, on: call.connection)
                    return [.string(user?.userIdentifier ?? "")]
                },
                .init(HubMethod.checkIn.rawValue) { [core] call async throws in
                    try core.post(core.change { (hub) throws(DeviceError) in try hub.checkIn() }, on: call.connection)
                    return []
                },
                .init(HubMethod.getSession.rawValue, out: [.init("session", "(sst)")]) { [core] _ in
                    [core.snapshot.session.wireValue]
                },
                .init(HubMethod.getUserInfo.rawValue, out: [.init("info", "a{sv}")]) { [core] _ in
                    let hub = core.snapshot
                    return [try answering { () throws(DeviceError) in try hub.userInfo() }.wireValue]
                },
                .init(HubMethod.setOnline.rawValue, in: [.init("online", "b")]) { [core] call async throws in
                    let online = call.arguments[0].bool!
                    try core.change { $0.setOnline(online) }
                    return []
                },
                .init(HubMethod.lock.rawValue) { [core] _ async throws in
                    try core.change { $0.lock() }
                    return []
                },
                .init(HubMethod.unlock.rawValue, in: credentials) { [core] call async throws in
                    let user = try Self.authenticate(call, core)
                    _ = try core.change { (hub) throws(DeviceError) in try hub.unlock(as: user) }
                    return []
                },
                .init(HubMethod.enterpriseWipe.rawValue) { [core] call async throws in
                    try core.post(
                        core.change { (hub) throws(DeviceError) in try hub.enterpriseWipe() }, on: call.connection)
                    return []
                },
            ],
            properties: [
                property(.state, "s") { .string($0.session.state.rawValue) },
                property(.shared, "b") { .bool($0.isShared) },
                property(.online, "b") { .bool($0.online) },
                property(.locked, "b") { .bool($0.locked) },
                property(.generation, "t") { .uint64($0.session.generation) },
                property(.foreground, "s") { .string($0.foreground.rawValue) },
            ])
    }

    private var credentials: [DBusInterface.Argument] { [.init("user", "s"), .init("password", "s")] }

    private func property(
        _ name: HubMethod.Property, _ type: Signature,
        _ value: @escaping @Sendable (HubModel) -> DBusValue
    ) -> DBusInterface.Property {
        .init(name.rawValue, type) { [core] in value(core.snapshot) }
    }

    // MARK: dev.sdlab.Broker1

    private var broker1: DBusInterface {
        DBusInterface(
            BrokerMethod.interface,
            methods: [
                .init(BrokerMethod.getDeviceInformation.rawValue, out: [.init("information", "a{sv}")]) { [core] _ in
                    let hub = core.snapshot
                    return [
                        DeviceInformation(
                            deviceMode: hub.deviceMode, generation: hub.broker.generation,
                            passcodePolicy: hub.policy.passcode, passcodeSet: hub.passcodeSet
                        ).wireValue
                    ]
                },
                .init(BrokerMethod.getAccounts.rawValue, out: [.init("accounts", "aa{sv}")]) { [core] _ in
                    let accounts = core.snapshot.currentAccount.map { [BrokerAccount(user: $0).wireValue] } ?? []
                    return [.array(element: "a{sv}", accounts)]
                },
                .init(
                    BrokerMethod.signIn.rawValue, in: credentials + [.init("client", "s")],
                    out: [.init("account", "a{sv}")]
                ) { [core] call async throws in
                    let user = try Self.authenticate(call, core)
                    try core.post(
                        core.change { (hub) throws(DeviceError) in try hub.signIn(as: user) }, on: call.connection)
                    return [BrokerAccount(user: user?.name ?? "").wireValue]
                },
                .init(BrokerMethod.signOut.rawValue, in: [.init("homeAccountId", "s"), .init("client", "s")]) {
                    [core] call async throws in
                    let id = call.arguments[0].string!
                    try core.post(
                        core.change { (hub) throws(DeviceError) in try hub.signOut(homeAccountID: id) },
                        on: call.connection)
                    return []
                },
                // The account removed outside any app (a settings page): the session ends, no post.
                .init(BrokerMethod.removeAccount.rawValue) { [core] _ async throws in
                    try core.change { (hub) throws(DeviceError) in try hub.removeAccount() }
                    return []
                },
                .init(
                    BrokerMethod.acquireTokenSilent.rawValue, in: [.init("homeAccountId", "s"), .init("client", "s")],
                    out: [.init("token", "(st)")]
                ) { [core] call in
                    let id = call.arguments[0].string!
                    let hub = core.snapshot
                    let token = try answering { () throws(DeviceError) in try hub.acquireTokenSilent(homeAccountID: id)
                    }
                    return [.structure([.string(token.token), .uint64(Self.tokenExpiry())])]
                },
            ])
    }

    /// An hour from now, in seconds since the epoch, as a token's expiry is written.
    private static func tokenExpiry() -> UInt64 { UInt64(Date().timeIntervalSince1970) + 3600 }

    // MARK: dev.sdlab.KeyService1

    private var keyService1: DBusInterface {
        DBusInterface(
            KeyServiceMethod.interface,
            methods: [
                .init(KeyServiceMethod.getUserKey.rawValue, out: [.init("key", "(say)")]) { [core] _ async throws in
                    let (user, key) = try core.change { (hub) throws(DeviceError) in
                        try hub.externalKey { SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) } }
                    }
                    return [UserKey(user: user, key: key).wireValue]
                }
            ])
    }

    // MARK: dev.sdlab.Notify1

    /// Register and Cancel run on the connection's thread, in the order they arrive and in
    /// order with the bus's `NameOwnerChanged` (`HubProcess.watchDepartures`): a client's
    /// registrations go with it even when it registered just before it died. They never save.
    private var notify1: DBusInterface {
        DBusInterface(
            NotifyMethod.interface,
            methods: [
                .init(NotifyMethod.setState.rawValue, in: [.init("name", "s"), .init("state", "t")]) {
                    [core] call async throws in
                    let name = try Self.notifyName(call.arguments[0])
                    let value = call.arguments[1].uint64!
                    try core.change { $0.setNotifyState(of: name, to: value) }
                    return []
                },
                .init(NotifyMethod.getState.rawValue, in: [.init("name", "s")], out: [.init("state", "t")]) {
                    [core] call in
                    let name = try Self.notifyName(call.arguments[0])
                    return [.uint64(core.snapshot.notify.state(of: name))]
                },
                .init(NotifyMethod.register.rawValue, in: [.init("name", "s")]) { [core] call in
                    let name = try Self.notifyName(call.arguments[0])
                    try core.change { $0.registerNotify(name, by: call.sender) }
                    return []
                },
                .init(NotifyMethod.cancel.rawValue, in: [.init("name", "s")]) { [core] call in
                    let name = try Self.notifyName(call.arguments[0])
                    try core.change { $0.cancelNotify(name, by: call.sender) }
                    return []
                },
            ],
            signals: [
                .init(NotifyMethod.posted, [.init("name", "s")])
            ])
    }

    private static func notifyName(_ value: DBusValue) throws -> String {
        let name = value.string ?? ""
        if let refusal = NotifyCenter.refusal(of: name) { throw DBusError.invalidArgs(refusal) }
        return name
    }

    // MARK: -

    /// The directory's user for the call's first two arguments, or nil for any mismatch;
    /// `LockedOut` while that name or the caller has failed too often.
    private static func authenticate(_ call: DBusInterface.Call, _ core: HubCore) throws(DBusError) -> DirectoryUser? {
        try core.authenticate(call.arguments[0].string!, call.arguments[1].string!, from: call.sender)
    }

}
