import BuiltInApp
import CFloor
import DBusKit
import DeviceContract
import DeviceProcesses
import Foundation
import SharedDevice

/// A receiver of the package's floor: its process, with recheck what it says on session
/// changes (cfloor.h) and its container.
struct FloorReceiver: Sendable {
    let process: ChildProcess
    let said: LineReader?
    let container: Container?
}

/// The cleanup floor: the recheck floor's session changes, the fleet's done to C receivers
/// (cfloor.h). Each change, as the fleet's:
/// 1. the broker is told the next user checked out; each receiver's check finds the account and
///    says it holds it;
/// 2. each receiver's container is given `records` plain records of that user by the built-in
///    app's own code (`Container.store`, numbered as the host numbers an app's writes), so the
///    files and folders a receiver removes are those the app removes;
/// 3. the broker is told to check in: it commits, takes the time, posts; each receiver's check
///    finds no account, removes the records and says when it finished.
/// A timed change's exposure is the commit → each receiver's cleanup ended (`ExposureTiming`).
struct FloorSessionChanges {
    let bus: String
    let receivers: [FloorReceiver]
    let records: Int
    /// How long the receivers get, all together, to take an account or to clean up.
    var bound = Duration.seconds(30)

    /// What a receiver says on its stdout.
    enum Said: Equatable {
        case holds(String)
        case cleaned(UInt64)
        case notCleaned

        init?(_ line: String) {
            let words = line.split(separator: " ")
            switch (words.first, words.count) {
            case ("holds", 2): self = .holds(String(words[1]))
            case ("cleaned", 2):
                guard let time = UInt64(words[1]) else { return nil }
                self = .cleaned(time)
            case ("not-cleaned", 1): self = .notCleaned
            default: return nil
            }
        }

        /// Whether it ends a check-in: the records removed, or not.
        var endsCheckIn: Bool { if case .holds = self { false } else { true } }
    }

    /// Runs `warmup` untimed changes, then `changes` timed ones.
    func run(changes: Int, warmup: Int) async throws -> ExposureTiming {
        let connection = try await Connection.connect(to: bus)
        defer { Task { await connection.close() } }
        var written: [String: Int] = [:]
        var commits: [UInt64] = []
        var cleanups = Array(repeating: [UInt64](), count: receivers.count)
        for change in 0..<(warmup + changes) {
            let user = FleetBench.users[change % FleetBench.users.count]
            let account = HubModel.homeAccountID(of: user)
            _ = try await commit(
                FLOOR_CHECK_OUT, [.string(account), .string(user), .string(HubModel.environment)], on: connection)
            let holding = try await listen(until: { $0 == .holds(account) }, cleanups: &cleanups)
            if let index = holding.firstIndex(of: false) {
                throw LaunchError(
                    "receiver \(index + 1) (PID \(receivers[index].process.pid)) did not take the account of "
                        + "\(user) within \(bound)")
            }
            let first = written[user, default: 0] + 1
            written[user] = first + records - 1
            try store(first..<first + records, of: user)
            let committed = try await commit(FLOOR_CHECK_IN, [], on: connection)
            if change >= warmup { commits.append(committed) }
            // A receiver that has not cleaned up within the bound is counted as uncleaned.
            _ = try await listen(until: { $0.endsCheckIn }, cleanups: &cleanups)
        }
        return ExposureTiming(commits: commits, cleanups: cleanups)
    }

    /// Gives each container the plain records `numbers` of `user`, as the built-in app stores a
    /// write of them.
    private func store(_ numbers: Range<Int>, of user: String) throws {
        for (index, container) in receivers.map(\.container).enumerated() {
            guard let container else { continue }
            do {
                try container.store(
                    numbers.map { Canary(user: user, app: container.app, kind: .plain, number: $0) },
                    keys: Container.Keys())
            } catch {
                throw LaunchError("cannot write receiver \(index + 1)'s records in \(container.root): \(error)")
            }
        }
    }

    /// The broker's check-out or check-in; returns its commit time.
    private func commit(_ member: String, _ arguments: [DBusValue], on connection: Connection) async throws
        -> UInt64
    {
        let reply = try await connection.call(
            destination: FLOOR_HUB_NAME, path: ObjectPath(FLOOR_HUB_PATH), interface: FLOOR_SESSION_INTERFACE,
            member: member, arguments)
        guard let time = reply.first?.int64, time > 0 else {
            throw LaunchError("FloorBroker answered \(member) with \(reply), not its commit time")
        }
        return UInt64(time)
    }

    /// Reads each receiver's lines until one is `awaited` or the bound has passed, noting every
    /// cleanup's end in `cleanups` whenever it comes; returns, per receiver, whether it said
    /// what was awaited. Throws when a receiver ended or said something else than cfloor.h's.
    private func listen(until awaited: @escaping @Sendable (Said) -> Bool, cleanups: inout [[UInt64]])
        async throws -> [Bool]
    {
        let deadline = ContinuousClock.now + bound
        let heard = await withTaskCancellationHandler {
            await offPool { [receivers] in receivers.map { Self.read($0, until: awaited, by: deadline) } }
        } onCancel: { [receivers] in
            // A termination signal: the receivers end now, and with them the reading (`PackageFloor`
            // stops the rest), rather than after the bound.
            for receiver in receivers { receiver.process.signal(SIGTERM) }
        }
        var awaitedBy: [Bool] = []
        for (index, outcome) in heard.enumerated() {
            let (said, awaited) = try outcome.get()
            for case .cleaned(let time) in said { cleanups[index].append(time) }
            awaitedBy.append(awaited)
        }
        return awaitedBy
    }

    /// Reads `receiver`'s lines until one is `awaited` or `deadline` passes; says whether one was.
    private static func read(
        _ receiver: FloorReceiver, until awaited: (Said) -> Bool, by deadline: ContinuousClock.Instant
    ) -> Result<(said: [Said], awaited: Bool), LaunchError> {
        guard let reader = receiver.said else { return .success(([], false)) }
        var said: [Said] = []
        while let line = reader.readLine(timeout: ContinuousClock.now.duration(to: deadline)) {
            guard let heard = Said(line) else {
                return .failure(LaunchError("a receiver (PID \(receiver.process.pid)) said \"\(line)\""))
            }
            said.append(heard)
            if awaited(heard) { return .success((said, true)) }
        }
        guard receiver.process.isRunning else {
            return .failure(LaunchError("a receiver (PID \(receiver.process.pid)) ended early"))
        }
        return .success((said, false))
    }
}
