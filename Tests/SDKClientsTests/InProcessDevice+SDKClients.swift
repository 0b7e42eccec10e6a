import DBusKit
import DeviceContract
import DeviceProcesses
import DeviceTestKit
import Foundation
import Hub
import HubFiles
import SDKClients
import SharedDevice
import Synchronization
import TestSupport
import Testing

/// What the SDK clients' tests ask of their device beyond the kit's.
extension InProcessDevice {
    /// The posts of `name` an app of the device hears, in order, until the subscription is
    /// cancelled.
    func posts(of name: String) async throws -> (AsyncStream<ReceivedPost>, PostSubscription) {
        let (posts, received) = AsyncStream.makeStream(of: ReceivedPost.self)
        let subscription = try await ReceivedPost.observe(name, on: connection()) { received.yield($0) }
        return (posts, subscription)
    }

    /// An app's keychain in the device's folder (`containers/APP/keychain`).
    func keychain(_ app: String) throws -> Keychain {
        try Keychain(folder: RunFolder.container(of: app, in: directory) + "/keychain")
    }
}

/// The bytes of a file and its inode: an atomic rewrite changes the inode even when the bytes
/// are the same.
struct FileIdentity: Equatable {
    let inode: UInt64
    let contents: Data

    init?(_ path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
            let contents = FileManager.default.contents(atPath: path)
        else { return nil }
        self.inode = inode
        self.contents = contents
    }
}

/// The name of the bus error `body` throws (`dev.sdlab.Error.BadCredentials`), nil when it succeeds.
func refusal(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as DBusError {
        return error.name
    } catch {
        return "\(error)"
    }
}
