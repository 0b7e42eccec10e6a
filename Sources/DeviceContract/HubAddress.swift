import DBusKit
import FoundationEssentials
import Synchronization

/// Where a client finds the hub on the bus. By default by its well-known name, which any
/// process on the bus may take once the hub is gone (and keep: a restarted hub then cannot
/// have it back). A device records the hub's unique name in a file (`hub --name-file`); a
/// client given that file calls that name only, and reads the file again when the name it
/// knew has left the bus (the hub restarted). Unique names are never reused on a bus, so a
/// process squatting on the well-known name is never asked.
public final class HubAddress: Sendable {
    /// The file the hub's unique name is recorded in; nil: the well-known name.
    public let nameFile: String?
    private let known = Mutex<String?>(nil)

    public static let wellKnown = HubAddress(nameFile: nil)

    public init(nameFile: String?) { self.nameFile = nameFile }

    /// The name to call: the well-known one, or the recorded one (read once).
    func destination() throws(DBusError) -> String {
        guard nameFile != nil else { return DeviceBus.hubName }
        if let name = known.withLock({ $0 }) { return name }
        return try reread()
    }

    /// Where to call again after `error` answered a call to `destination`: the name a restarted
    /// hub recorded, when the hub this client knew has left the bus; nil when there is none to try.
    func destination(after error: DBusError, from destination: String) throws(DBusError) -> String? {
        guard nameFile != nil, error.isNameGone else { return nil }
        let recorded = try reread()
        return recorded == destination ? nil : recorded
    }

    /// The recorded name, read again.
    @discardableResult
    func reread() throws(DBusError) -> String {
        guard let nameFile else { return DeviceBus.hubName }
        let text = FileManager.default.contents(atPath: nameFile).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let name = String(text.prefix { $0 != "\n" })
        // A unique name (`:1.5`), never a well-known one, whatever the file says. None recorded
        // is as if the hub had left the bus (`isNameGone`): unreachable, and read again next time.
        guard name.hasPrefix(":"), DBusNames.isValidBusName(name) else {
            throw DBusError.serviceUnknown("no hub is recorded in \(nameFile)")
        }
        known.withLock { $0 = name }
        return name
    }
}
