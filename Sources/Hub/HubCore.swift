import Crypto
import DBusKit
import DeviceContract
import Foundation
import HubFiles
import SharedDevice
import Synchronization

/// The hub's state and the one way to change it: a change counts once it is saved, so a
/// caller that got a reply never loses it to a crash.
final class HubCore: Sendable {
    let directory: ConsoleDirectory
    let trace: TraceLog?
    private let model: Mutex<HubModel>
    private let store: StateFile?
    /// Per user, the password that last verified, as an HMAC under `verifiedKey`.
    private let verified = Mutex<[String: Data]>([:])
    private let verifiedKey = SymmetricKey(size: .bits256)
    private let lockout = Mutex(PasswordLockout())
    private let started = ContinuousClock.now
    /// Where the runner arms a crash at a point of the next session change (nil: never).
    private let crashFile: String?
    /// The point of the change in hand at which the hub dies, once taken from `crashFile`.
    private let armed = Mutex<HubCrashPoint?>(nil)

    init(_ state: HubState, store: StateFile?, trace: TraceLog?, crashFile: String? = nil) {
        directory = state.directory
        model = Mutex(state.model)
        self.store = store
        self.trace = trace
        self.crashFile = crashFile
    }

    /// The directory's user for this name and password from the client `sender`, or nil for
    /// any mismatch; `LockedOut`, unchecked, while that name or client has failed too often
    /// (`PasswordLockout`). A password that verified is remembered for the process's life as
    /// an HMAC under a key of its own: a storm of check-outs then pays scrypt once per user
    /// rather than per call, and the state file still holds only the scrypt hashes.
    func authenticate(_ name: String, _ password: String, from sender: String) throws(DBusError) -> DirectoryUser? {
        let parties: [PasswordLockout.Party] = [.user(name), .client(sender)]
        if let wait = lockout.withLock({ $0.attempt(parties, at: started.duration(to: .now)) }) {
            let seconds = Int((wait / .seconds(1)).rounded(.up))
            throw DBusError(
                name: DeviceError.lockedOut.name, message: "too many wrong passwords: try again in \(seconds) s")
        }
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(password.utf8), using: verifiedKey))
        if verified.withLock({ $0[name] == mac }) {
            lockout.withLock { $0.succeeded(user: name, client: sender) }
            return directory.accounts.first { $0.user.name == name }?.user
        }
        guard let user = directory.authenticate(name, password) else { return nil }  // counted already
        verified.withLock { $0[name] = mac }
        lockout.withLock { $0.succeeded(user: name, client: sender) }
        return user
    }

    /// The state as it is now (a copy).
    var snapshot: HubModel { model.withLock { $0 } }

    func change<T: Sendable>(_ body: (inout HubModel) throws(DeviceError) -> T) throws(DBusError) -> T {
        try model.withLock { (current) throws(DBusError) -> T in
            var next = current
            let result = try answering { () throws(DeviceError) in try body(&next) }
            // A point the previous change never reached is not carried over.
            armed.withLock { $0 = nil }
            if next.session != current.session || next.broker != current.broker { arm() }
            crashIfArmed(at: .beforeCommit)
            if next != current {
                do {
                    // Registrations alone (Notify1.Register and Cancel) change nothing saved.
                    if next.saved != current.saved { try store?.save(HubState(directory: directory, model: next)) }
                } catch {
                    // Refused, the change does not count; the run it belongs to cannot be judged.
                    trace?.record(.writeFailed, [.path: .string(store?.path ?? "?"), .error: .string("\(error)")])
                    throw DBusError.failed("\(error)")
                }
                if next.session != current.session {
                    // t0 of the change: committed, not yet posted or answered.
                    trace?.record(
                        .sessionChanged,
                        [
                            .state: .string(next.session.state.rawValue),
                            .user: .user(next.session.user), .generation: .uint(next.session.generation),
                        ])
                }
                if next.broker != current.broker, next.policy.broker == .authenticator {
                    trace?.record(
                        .accountChanged,
                        [.user: .user(next.broker.account), .generation: .uint(next.broker.generation)])
                }
                crashIfArmed(at: .afterCommit)
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

extension HubCore {
    /// Carries out the posts a change asks for, in order; the notify state is already set and
    /// saved. An Android broadcast travels as a post of its action, which only receivers
    /// registered for that action hear.
    func post(_ effects: [HubModel.Effect], on connection: Connection) throws {
        // A hub armed to die among its posts holds its state until it dies, so that no other
        // caller is answered in between, as none would be by a hub that died there.
        guard armed.withLock({ $0?.isAmongThePosts == true }) else {
            return try send(effects, on: connection)
        }
        try model.withLock { _ in try send(effects, on: connection) }
    }

    private func send(_ effects: [HubModel.Effect], on connection: Connection) throws {
        for effect in effects {
            try connection.post(effect.name)
            var fields: [(TraceField, TraceValue)] = [(.name, .string(effect.name))]
            if case .post(_, let state) = effect { fields.append((.state, .uint(state))) }
            trace?.record(.posted, fields: fields)
            if let point = HubCrashPoint.reached(after: effect) { crashIfArmed(at: point, flushing: connection) }
        }
        if !effects.isEmpty { crashIfArmed(at: .afterPosts, flushing: connection) }
    }

    /// Takes the point the runner armed for this change, if any: read once, then removed, so
    /// that the hub started again after the crash does not crash too.
    fileprivate func arm() {
        guard let crashFile, let text = try? String(contentsOfFile: crashFile, encoding: .utf8) else { return }
        unlink(crashFile)
        armed.withLock { $0 = HubCrashPoint(rawValue: text.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Dies at `point` if the change in hand is armed for it: traced, then SIGKILL to itself,
    /// as a crash there would leave the device. What it sent on the bus is flushed first, as
    /// the kernel would have delivered it.
    fileprivate func crashIfArmed(at point: HubCrashPoint, flushing connection: Connection? = nil) {
        guard armed.withLock({ $0 == point }) else { return }
        trace?.record(.hubCrashed, [.name: .string(point.rawValue)])
        connection?.writeQueued()
        kill(getpid(), SIGKILL)
    }
}
