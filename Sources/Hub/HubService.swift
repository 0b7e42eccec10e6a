import DBusKit
import SharedDevice
import Synchronization

/// The hub's object on the bus: every decision is the domain's, this only translates
/// between D-Bus values and `SharedDevice`.
final class HubService: Sendable {
    private let state = Mutex(HubModel())

    var interfaces: [DBusInterface] { [hub1, notify1] }

    private var hub1: DBusInterface {
        DBusInterface(DeviceBus.hubInterface, methods: [
            .init("GetSession", out: [.init("session", "(sst)")]) { [self] _ in
                let session = state.withLock { $0.session }
                return [.structure([.string(session.state.rawValue), .string(session.user ?? ""),
                                    .uint64(session.generation)])]
            },
        ], properties: [
            .init("State", "s") { [self] in .string(state.withLock { $0.session.state.rawValue }) },
            .init("Generation", "t") { [self] in .uint64(state.withLock { $0.session.generation }) },
        ])
    }

    private var notify1: DBusInterface {
        DBusInterface(DeviceBus.notifyInterface, methods: [
            .init("SetState", in: [.init("name", "s"), .init("state", "t")]) { [self] call in
                let name = try Self.notifyName(call.arguments[0])
                let value = call.arguments[1].uint64!
                state.withLock { $0.setNotifyState(of: name, to: value) }
                return []
            },
            .init("GetState", in: [.init("name", "s")], out: [.init("state", "t")]) { [self] call in
                let name = try Self.notifyName(call.arguments[0])
                return [.uint64(state.withLock { $0.notify.state(of: name) })]
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
}
