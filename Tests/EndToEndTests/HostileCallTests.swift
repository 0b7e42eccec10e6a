import DBusKit
import DeviceContract
import DeviceLaunch
import DeviceProcesses
import Faults
import Foundation
import SharedDevice
import TestSupport
import Testing

/// A foreign client fuzzing every member of the hub and of real app processes with random
/// signatures and values (the contract in Bus/: a bad call gets a D-Bus error reply and the process keeps
/// serving). Every call must be answered by the callee, with a reply or an error, within its
/// bound; afterwards each process still serves, under the same PID, holding no descriptor it
/// was sent. Each fuzz test prints its seed; SDLAB_FUZZ_SEED=N runs both with seed N,
/// SDLAB_FUZZ_SEED=random with a new one.
@Suite(.tags(.device), .devicesWanted, .serialized, .timeLimit(.minutes(3)))
struct HostileCallTests {
    static let hub1 = HubMethod.interface

    @Test func aFreshHubAndAnAppAnswerEveryHostileCall() async throws {
        let seed = try Self.seed(default: 0x5D1A_B057_11E0_0001)
        try await AppDevice.with { lab in
            let app = try await lab.launch(AppSpec(name: "fresh", sdk: .msal))
            try await Fuzz(lab, seed: seed, apps: [app]).run(hubCalls: 600, appCalls: 200, restoring: false)
        }
    }

    /// Enrolled and checked out, with an MSAL and a Workspace ONE app, so that correctly typed
    /// calls reach the handlers' own decisions. State-changing calls are fuzzed too (a valid
    /// `CheckIn`, `EnterpriseWipe` or `Lock` may come up); the device is checked out again now
    /// and then, between calls.
    @Test func aCheckedOutHubAndItsAppsAnswerEveryHostileCall() async throws {
        let seed = try Self.seed(default: 0x5D1A_B057_11E0_0002)
        try await AppDevice.with { lab in
            try await lab.connection.checkOut("cou1")
            let mail = try await lab.launch(
                AppSpec(name: "mail", sdk: .msal, backgroundMode: true, cleanup: .externalKey))
            let inventory = try await lab.launch(AppSpec(name: "inventory", sdk: .ws1))
            try await lab.app("mail").write(.external, count: 2)
            try await Fuzz(lab, seed: seed, apps: [mail, inventory]).run(hubCalls: 600, appCalls: 200, restoring: true)
        }
    }

    /// A call is matched to a method by its header: a large body that no member takes is
    /// refused without being decoded (decoded, each byte took some forty bytes of the hub's memory).
    @Test func aLargeBodyThatNoMemberTakesCostsTheHubLittleMemory() async throws {
        try await AppDevice.with { lab in
            let before = try #require(peakMemory(of: lab.device.hub.pid))
            let bytes = DBusValue.array(element: "y", Array(repeating: .byte(7), count: 4 << 20))
            let error = await #expect(throws: DBusError.self) {
                try await lab.connection.callHub(HubMethod.getSession, [bytes], timeout: .seconds(20))
            }
            #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
            let after = try #require(peakMemory(of: lab.device.hub.pid))
            #expect(
                after - before < 48 << 20, "the hub's peak memory grew from \(before >> 20) MiB to \(after >> 20) MiB")
        }
    }

    /// VmHWM: the most memory the process has held at once, in bytes.
    func peakMemory(of pid: Int32) -> Int? {
        let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status?.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(whereSeparator: \.isWhitespace)[1]) }.map { $0 << 10 }
    }

    /// SDLAB_FUZZ_SEED (decimal or 0x hex, or `random`), else `fallback`: fixed, so every run
    /// of the suite sends the same calls unless asked otherwise.
    static func seed(default fallback: UInt64) throws -> UInt64 {
        guard let text = ProcessInfo.processInfo.environment["SDLAB_FUZZ_SEED"] else { return fallback }
        if text == "random" { return UInt64.random(in: .min ... .max) }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        return try #require(parsed, "SDLAB_FUZZ_SEED=\(text) is not a number")
    }
}

// MARK: - The fuzzing client

/// One device's fuzz run: the calls, their answers, and the checks afterwards.
private struct Fuzz: Sendable {
    let lab: AppDevice
    let seed: UInt64
    let apps: [LaunchedApp]

    init(_ lab: AppDevice, seed: UInt64, apps: [LaunchedApp]) {
        self.lab = lab
        self.seed = seed
        self.apps = apps
    }

    /// `hubCalls` to the hub and `appCalls` to each app, one at a time in a seeded order; then
    /// a sixth as many again all in flight at once, as from many clients.
    func run(hubCalls: Int, appCalls: Int, restoring: Bool) async throws {
        print("HostileCallTests: seed \(seed) (SDLAB_FUZZ_SEED=\(seed) repeats this run)")
        let targets = try await targets()
        let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let descriptorsBefore = targets.map { openDescriptors(of: $0.pid) }

        var input = HostileInput(seed: seed, descriptor: descriptor)
        var schedule = Array(repeating: 0, count: hubCalls)
        for index in targets.indices.dropFirst() { schedule += Array(repeating: index, count: appCalls) }
        schedule.shuffle(using: &input.random)
        var stats = targets.map { _ in Stats() }
        var failures = 0
        for (step, index) in schedule.enumerated() {
            if restoring, step.isMultiple(of: 50) { await restoreCheckedOutSession() }
            let call = input.call(to: targets[index])
            let outcome = await send(call)
            stats[index].note(call, outcome)
            guard expectAnswered(outcome, call, targets[index], "step \(step)", all: targets, failures: &failures)
            else { break }
        }
        if failures == 0 {
            let burst = schedule.prefix(schedule.count / 6).map { ($0, input.call(to: targets[$0])) }
            for (position, (index, call), outcome) in await sendAtOnce(burst) {
                stats[index].note(call, outcome)
                guard
                    expectAnswered(
                        outcome, call, targets[index], "burst call \(position)", all: targets,
                        failures: &failures)
                else { break }
            }
        }
        for (target, stat) in zip(targets, stats) { print("HostileCallTests: \(target.name): \(stat)") }
        try await expectStillServing(targets, descriptorsBefore: descriptorsBefore)
    }

    /// The hub and each app, as their introspection describes them.
    private func targets() async throws -> [Target] {
        var targets = [
            Target(
                name: "hub", destination: DeviceBus.hubName, path: DeviceBus.hubPath, pid: lab.device.hub.pid,
                shape: try await introspect(DeviceBus.hubName, DeviceBus.hubPath), slowMembers: [:])
        ]
        for app in apps {
            let name = AppBus.namePrefix + app.spec.name
            targets.append(
                Target(
                    name: app.spec.name, destination: name, path: AppBus.path, pid: app.process.pid,
                    shape: try await introspect(name, AppBus.path), slowMembers: Target.appWork))
        }
        #expect(targets[0].shape.methods.count >= 20 && targets.dropFirst().allSatisfy { $0.shape.methods.count >= 10 })
        return targets
    }

    /// Records a call left unanswered or answered other than declared; false once the run should stop: five of them, a
    /// process gone, or the fuzzing client itself disconnected by the bus.
    private func expectAnswered(
        _ outcome: Outcome, _ call: FuzzCall, _ target: Target, _ position: String, all: [Target],
        failures: inout Int
    ) -> Bool {
        guard case .failed(let why) = outcome else { return true }
        failures += 1
        guard lab.connection.isConnected else {
            Issue.record("seed \(seed), \(position): the bus disconnected the fuzzing client after \(call): \(why)")
            return false
        }
        let alive = target.isAlive ? "still runs" : "is gone"
        Issue.record(
            "seed \(seed), \(position): \(target.name) (\(alive)) answered \(call) wrongly or not at all: \(why)")
        return failures < 5 && all.allSatisfy(\.isAlive)
    }

    /// Sends every call at once; the outcomes in the order of `calls`.
    private func sendAtOnce(_ calls: [(Int, FuzzCall)]) async -> [(Int, (Int, FuzzCall), Outcome)] {
        let outcomes = await withTaskGroup(of: (Int, Outcome).self) { group in
            for (position, (_, call)) in calls.enumerated() { group.addTask { (position, await send(call)) } }
            return await group.reduce(into: [Int: Outcome]()) { $0[$1.0] = $1.1 }
        }
        return calls.enumerated().map { ($0.offset, $0.element, outcomes[$0.offset]!) }
    }

    private func introspect(_ destination: String, _ path: ObjectPath) async throws -> ObjectShape {
        let reply = try await lab.connection.call(
            destination: destination, path: path,
            interface: "org.freedesktop.DBus.Introspectable", member: "Introspect",
            timeout: .seconds(5))
        return try ObjectShape(try #require(reply.first?.string))
    }

    private func send(_ call: FuzzCall) async -> Outcome {
        let started = ContinuousClock.now
        do {
            let reply = try await lab.connection.call(
                destination: call.destination, path: call.path, interface: call.interface,
                member: call.member, call.arguments, timeout: call.timeout)
            let took = ContinuousClock.now - started
            if let expected = call.replySignature, reply.signature != expected {
                return .failed("a reply of (\(reply.signature)) instead of the declared (\(expected))")
            }
            return .replied(took)
        } catch let error as DBusError where !Outcome.notFromTheCallee.contains(error.name) {
            return .error(error.name, ContinuousClock.now - started)
        } catch {
            return .failed("no answer: \(error) after \(ContinuousClock.now - started)")
        }
    }

    /// Between calls, best effort: back online, unlocked, enrolled and checked out as cou1 (a
    /// fuzzed call may have ended any of these).
    private func restoreCheckedOutSession() async {
        let calls: [(String, [DBusValue])] = [
            ("SetOnline", [true]), ("Unlock", ["cou1", "cou1"]), ("Unlock", ["cou2", "cou2"]),
            ("Enroll", ["stage", "stage"]), ("CheckOut", ["cou1", "cou1"]),
        ]
        for (member, arguments) in calls { _ = try? await lab.connection.hub(HostileCallTests.hub1, member, arguments) }
    }

    /// The hub answers `GetSession` as declared, each app its snapshot under the PID it was
    /// launched with; nobody exited or holds a descriptor it was sent.
    private func expectStillServing(_ targets: [Target], descriptorsBefore: [Int]) async throws {
        let reply = try await lab.connection.callHub(HubMethod.getSession, timeout: .seconds(5))
        #expect(Session(wire: reply.first) != nil, "seed \(seed): GetSession answered \(reply)")
        for app in apps {
            let snapshot = try await AppClient(lab.connection, app: app, timeout: .seconds(20)).snapshot()
            #expect(snapshot.pid == app.process.pid, "seed \(seed): \(app.spec.name)'s snapshot")
        }
        for (target, before) in zip(targets, descriptorsBefore) {
            #expect(target.isAlive, "seed \(seed): \(target.name) (pid \(target.pid)) exited")
            let after = openDescriptors(of: target.pid)
            print("HostileCallTests: \(target.name) held \(before) descriptors before, \(after) after")
            #expect(
                after <= before + 4, "seed \(seed): \(target.name) held \(before) descriptors before, \(after) after")
        }
        #expect(lab.device.bus.process.isRunning, "seed \(seed): the bus exited")
    }
}

/// A process under fuzz and what it declares.
private struct Target {
    let name: String
    let destination: String
    let path: ObjectPath
    let pid: Int32
    let shape: ObjectShape
    /// Members allowed longer than `defaultTimeout`, with their bound.
    let slowMembers: [String: Duration]

    static let defaultTimeout = Duration.seconds(5)

    /// An app's members that wait for its work, which runs one piece at a time: a check asks
    /// the hub up to three times (notify state, account, external key), each bounded by the
    /// SDK's 5 s hub timeout, and a `Write` seals up to 100000 records on the work loop;
    /// `Snapshot` reads every record the app holds, which grows with each `Write`. Only the
    /// bound is longer: each must still answer.
    static let appWork: [String: Duration] = Dictionary(
        uniqueKeysWithValues: [
            "Foreground", "Resumed", "Write", "SignIn", "SignOut", "Unlock", "Settle", "Snapshot",
        ].map { ($0, Duration.seconds(20)) })

    var isAlive: Bool { ChildProcess(pid: pid).isRunning }

    func timeout(for member: String) -> Duration { slowMembers[member] ?? Self.defaultTimeout }
}

/// The interfaces, methods and properties of one object, from its `Introspect`.
private struct ObjectShape {
    struct Method {
        let interface: String
        let name: String
        let inputs: Signature
        let outputs: Signature
    }

    let interfaces: [String]
    let methods: [Method]
    let properties: [(interface: String, name: String)]

    /// From `InterfaceShapes`' lines: `method M`, `  in s x`, `  out t y`, `signal S`, `property P b read`.
    init(_ xml: String) throws {
        let shapes = try InterfaceShapes.parse(xml).sorted { $0.key < $1.key }
        var methods: [Method] = [], properties: [(String, String)] = []
        for (interface, lines) in shapes {
            var method: (name: String, inputs: String, outputs: String)?
            for line in lines + ["end"] {
                let words = line.split(separator: " ").map(String.init)
                if words.first == "in" || words.first == "out" {
                    if words.first == "in" { method?.inputs += words[1] } else { method?.outputs += words[1] }
                    continue
                }
                if let m = method {
                    methods.append(
                        Method(
                            interface: interface, name: m.name, inputs: try Signature(m.inputs),
                            outputs: try Signature(m.outputs)))
                }
                method = words.first == "method" ? (words[1], "", "") : nil
                if words.first == "property" { properties.append((interface, words[1])) }
            }
        }
        (self.interfaces, self.methods, self.properties) = (shapes.map(\.key), methods, properties)
    }
}

/// One fuzzed call, described briefly enough for a failure message (long values abridged).
private struct FuzzCall: CustomStringConvertible {
    let destination: String
    let path: ObjectPath
    let interface: String?
    let member: String
    let arguments: [DBusValue]
    let timeout: Duration
    /// The declared output, when the call names a declared method with its own signature.
    let replySignature: Signature?

    var description: String {
        "\(destination) \(path) \(interface ?? "(no interface)").\(member)(\(arguments.signature)) "
            + "[" + arguments.map(Self.brief).joined(separator: ", ") + "]"
    }

    static func brief(_ value: DBusValue) -> String {
        switch value {
        case .string(let text):
            let bytes = text.utf8.count
            let shown = String(text.prefix(bytes <= 40 ? 40 : 16)).debugDescription
            return bytes <= 40 ? shown : shown.dropLast() + "…\" (\(bytes) bytes)"
        case .objectPath(let path): return "o\"\(path)\""
        case .signature(let signature): return "g\"\(signature)\""
        case .array(let element, let items): return "a\(element)" + list(items)
        case .dictionary(let key, let value, let entries):
            return "a{\(key)\(value)}" + list(entries.map { .structure([$0.key, $0.value]) })
        case .structure(let fields): return "(" + fields.map(brief).joined(separator: ", ") + ")"
        case .variant(let inner): return "v:" + brief(inner)
        default: return "\(value)"
        }
    }

    private static func list(_ items: [DBusValue]) -> String {
        let shown = items.prefix(6).map(brief).joined(separator: ", ")
        return "[" + shown + (items.count > 6 ? ", … \(items.count) items" : "") + "]"
    }
}

private enum Outcome {
    case replied(Duration)
    case error(String, Duration)
    case failed(String)

    /// Errors that say the callee never answered: the bus's, or the caller's own timeout.
    static let notFromTheCallee: Set<String> = Set(
        [
            "NoReply", "Timeout", "TimedOut", "Disconnected", "ServiceUnknown", "NameHasNoOwner", "LimitsExceeded",
            "NoMemory", "AccessDenied",
        ].map { DBusError.prefix + $0 })
}

/// What a fuzz run saw of one process.
private struct Stats: CustomStringConvertible {
    var calls = 0, replies = 0, errors: [String: Int] = [:]
    var slowest: (call: String, took: Duration) = ("", .zero)

    mutating func note(_ call: FuzzCall, _ outcome: Outcome) {
        calls += 1
        let took: Duration
        switch outcome {
        case .replied(let duration):
            replies += 1
            took = duration
        case .error(let name, let duration):
            errors[String(name.split(separator: ".").last ?? ""), default: 0] += 1
            took = duration
        case .failed:
            return
        }
        if took > slowest.took { slowest = ("\(call)", took) }
    }

    var description: String {
        let kinds = errors.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(calls) calls, \(replies) replies, errors: \(kinds); slowest \(slowest.call) \(slowest.took)"
    }
}

// MARK: - Random calls and values

/// Random calls: declared members with their own signature and random values (so the
/// handlers' own logic runs), declared members with random arguments, names that do not
/// exist, wrong interfaces, no interface, wrong paths, and Properties calls of any name.
private struct HostileInput {
    var random: SeededGenerator
    /// An open descriptor sent wherever a value is of type `h`.
    let descriptor: Int32

    init(seed: UInt64, descriptor: Int32) {
        random = SeededGenerator(state: seed)
        self.descriptor = descriptor
    }

    static let properties = "org.freedesktop.DBus.Properties"

    mutating func call(to target: Target) -> FuzzCall {
        while true {
            let call = candidate(to: target)
            // Only what can go on the wire: the body's signature at most 255 bytes, no value
            // nested deeper than D-Bus allows, and no more descriptors than the bus passes in
            // one message (it disconnects a sender of more: max_message_unix_fds in Bus/device.conf).
            guard (try? Signature(call.arguments.signature.rawValue)) != nil,
                (try? call.arguments.forEach { try $0.validate() }) != nil,
                call.arguments.map(Self.unixFDCount).reduce(0, +) <= 16
            else { continue }
            return call
        }
    }

    private static func unixFDCount(_ value: DBusValue) -> Int {
        switch value {
        case .unixFD: 1
        case .array(_, let items): items.map(unixFDCount).reduce(0, +)
        case .dictionary(_, _, let entries): entries.map { unixFDCount($0.key) + unixFDCount($0.value) }.reduce(0, +)
        case .structure(let fields): fields.map(unixFDCount).reduce(0, +)
        case .variant(let inner): unixFDCount(inner)
        default: 0
        }
    }

    private mutating func candidate(to target: Target) -> FuzzCall {
        let shape = target.shape
        var path = target.path
        var interface: String?
        let member: String
        var arguments: [DBusValue]
        var declared: ObjectShape.Method?
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<40:  // a declared method, its signature, random values
            let method = shape.methods.randomElement(using: &random)!
            (interface, member) = (chance(0.85) ? method.interface : nil, method.name)
            arguments = values(of: method.inputs)
            declared = interface == nil ? nil : method
        case 40..<65:  // a declared method, random arguments
            let method = shape.methods.randomElement(using: &random)!
            (interface, member) = (chance(0.8) ? method.interface : nil, method.name)
            arguments = randomArguments()
        case 65..<80:  // Properties with any names
            interface = Self.properties
            member = pick(["Get", "Set", "GetAll"])
            let names = propertyNames(shape)
            arguments =
                switch member {
                case "Get": [.string(names.interface), .string(names.property)]
                case "Set": [.string(names.interface), .string(names.property), value(of: "v", depth: 0)]
                default: [.string(names.interface)]
                }
            if chance(0.15) { arguments = randomArguments() }
        case 80..<88:  // a member that does not exist
            interface = chance(0.3) ? nil : pick(shape.interfaces + Self.foreignInterfaces)
            member = pick(Self.unknownMembers)
            arguments = randomArguments()
        case 88..<94:  // a declared member on the wrong interface
            let method = shape.methods.randomElement(using: &random)!
            interface = pick((shape.interfaces + Self.foreignInterfaces).filter { $0 != method.interface })
            member = method.name
            arguments = chance(0.5) ? values(of: method.inputs) : randomArguments()
        default:  // an object that is not there, or an intermediate node
            let method = shape.methods.randomElement(using: &random)!
            path = pick(Self.otherPaths)
            (interface, member) = (chance(0.7) ? method.interface : nil, method.name)
            arguments = chance(0.5) ? values(of: method.inputs) : randomArguments()
        }
        return FuzzCall(
            destination: target.destination, path: path, interface: interface, member: member,
            arguments: arguments, timeout: target.timeout(for: member),
            replySignature: declared.map(\.outputs))
    }

    private mutating func propertyNames(_ shape: ObjectShape) -> (interface: String, property: String) {
        let known = shape.properties.randomElement(using: &random)!
        let interface =
            chance(0.6) ? known.interface : pick(shape.interfaces + Self.foreignInterfaces + ["", string()])
        let property = chance(0.6) ? pick(shape.properties.map(\.name)) : pick(["", "Nope", "state", string()])
        return (interface, property)
    }

    static let foreignInterfaces = [
        "dev.sdlab.Nope1", "dev.sdlab.Hub2", "org.freedesktop.DBus", "dev.sdlab.App1",
        "dev.sdlab.Hub1", "org.freedesktop.DBus.ObjectManager", "a.b",
        String(repeating: "a.", count: 127) + "b",
    ]
    static let unknownMembers = [
        "Nope", "enroll", "CHECKOUT", "CheckOut2", "GetAll2", "_", "X",
        "Introspect_", String(repeating: "M", count: 255),
    ]
    static let otherPaths: [ObjectPath] = [
        "/", "/dev", "/dev/sdlab", "/dev/sdlab/Hub/x", "/dev/sdlab/App/x", "/dev/sdlab/Notify",
        "/org/freedesktop/DBus", "/nope", "/dev/sdlab/hub",
    ]

    // MARK: Arguments

    /// 0 to 6 values of random types.
    private mutating func randomArguments() -> [DBusValue] {
        (0..<Int.random(in: 0...6, using: &random)).map { _ in value(of: type(depth: 0), depth: 0) }
    }

    /// Values of each complete type of `signature`; strings are mostly ones the members know
    /// (users, passwords, record kinds, notification names), so the handlers get past their checks.
    private mutating func values(of signature: Signature) -> [DBusValue] {
        signature.completeTypes.map { type in
            type == "s" && chance(0.6) ? .string(pick(Self.knownStrings)) : value(of: type, depth: 0)
        }
    }

    // MARK: Types

    private static let basicCodes = Array("ybnqiuxtdsogh")

    /// One complete type; containers get rarer the deeper they are.
    private mutating func type(depth: Int) -> Signature {
        while true {
            // Arrays in arrays may nest deeper than D-Bus allows: those are drawn again.
            if let type = try? Signature(typeText(depth: depth)) { return type }
        }
    }

    private mutating func typeText(depth: Int) -> String {
        guard depth < 5, chance(0.45 - 0.08 * Double(depth)) else { return String(pick(Self.basicCodes)) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3: return "a" + typeText(depth: depth + 1)
        case 3..<5: return "a{" + String(pick(Self.basicCodes)) + typeText(depth: depth + 1) + "}"
        case 5..<8:
            return "(" + (0..<Int.random(in: 1...4, using: &random)).map { _ in typeText(depth: depth + 1) }.joined()
                + ")"
        case 8: return String(repeating: "a", count: Int.random(in: 2...32, using: &random)) + "y"
        default: return "v"
        }
    }

    // MARK: Values

    private mutating func value(of type: Signature, depth: Int) -> DBusValue {
        let text = type.rawValue
        switch text.first! {
        case "a":
            let element = String(text.dropFirst())
            if element.hasPrefix("{") {
                let parts = Signature(stringLiteral: String(element.dropFirst().dropLast())).completeTypes
                let entries = (0..<count(depth)).map { _ in
                    DBusValue.DictEntry(value(of: parts[0], depth: depth + 1), value(of: parts[1], depth: depth + 1))
                }
                return .dictionary(key: parts[0], value: parts[1], entries)
            }
            if element == "y", chance(0.1) {
                return .array(
                    element: "y",
                    (0..<Int.random(in: 0...65536, using: &random)).map { .byte(UInt8(truncatingIfNeeded: $0)) })
            }
            return .array(
                element: Signature(stringLiteral: element),
                (0..<count(depth)).map { _ in value(of: Signature(stringLiteral: element), depth: depth + 1) })
        case "(":
            return .structure(
                Signature(stringLiteral: String(text.dropFirst().dropLast())).completeTypes.map {
                    value(of: $0, depth: depth + 1)
                })
        case "v":
            // Now and then a chain of variants, nested as deep as D-Bus allows.
            if chance(0.05) {
                var inner = DBusValue.string("deep")
                for _ in 0..<Int.random(in: 2...60, using: &random) { inner = .variant(inner) }
                return .variant(inner)
            }
            return .variant(value(of: self.type(depth: depth + 1), depth: depth + 1))
        default:
            return basic(text.first!)
        }
    }

    /// Container sizes: mostly small, sometimes empty, now and then large; deep down at most
    /// one element, so that arrays nested 32 deep stay small trees.
    private mutating func count(_ depth: Int) -> Int {
        if depth == 0, chance(0.03) { return 300 }
        return Int.random(in: 0...(depth < 2 ? 4 : depth < 5 ? 2 : 1), using: &random)
    }

    private mutating func basic(_ code: Character) -> DBusValue {
        switch code {
        case "y": .byte(chance(0.5) ? pick([0, 1, 0x7F, 0x80, 0xFF]) : UInt8.random(in: .min ... .max, using: &random))
        case "b": .bool(chance(0.5))
        case "n": .int16(chance(0.5) ? pick([.min, -1, 0, 1, .max]) : Int16.random(in: .min ... .max, using: &random))
        case "q": .uint16(chance(0.5) ? pick([0, 1, .max]) : UInt16.random(in: .min ... .max, using: &random))
        case "i": .int32(chance(0.5) ? pick([.min, -1, 0, 1, .max]) : Int32.random(in: .min ... .max, using: &random))
        case "u":
            .uint32(
                chance(0.6)
                    ? pick([0, 1, 2, 3, 100, 100_000, 100_001, UInt32(Int32.max) + 1, .max])
                    : UInt32.random(in: .min ... .max, using: &random))
        case "x": .int64(chance(0.5) ? pick([.min, -1, 0, 1, .max]) : Int64.random(in: .min ... .max, using: &random))
        case "t":
            .uint64(
                chance(0.5)
                    ? pick([0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max])
                    : UInt64.random(in: .min ... .max, using: &random))
        case "d":
            .double(
                chance(0.6)
                    ? pick([
                        0, -0.0, .nan, .infinity, -.infinity, .greatestFiniteMagnitude,
                        .leastNonzeroMagnitude, -1, 1e300,
                    ])
                    : Double.random(in: -1e9...1e9, using: &random))
        case "s": .string(string())
        case "o": .objectPath(objectPath())
        case "g": .signature(signature())
        case "h": .unixFD(descriptor)
        default: .string("")
        }
    }

    /// Strings the members know (names, users, kinds), long ones, unicode and odd characters.
    private static let knownStrings = [
        "", "stage", "cou1", "cou2", "wrong", "sensitive", "plain", "preferences", "common", "external",
        NotifyCenter.accountChanged, "dev.sdlab.Hub1", "dev.sdlab.Broker1", "dev.sdlab.App1", "State", "Generation",
        "Name",
        HubModel.homeAccountID(of: "cou1"), HubModel.homeAccountID(of: "cou2"), "mail", "inventory", "fresh",
    ]
    private static let oddStrings = [
        "é", "日本語のテキスト", "🧪👩‍💻🏳️‍🌈", "\u{202E}desrever", "\u{FEFF}bom",
        "\u{FFFF}\u{FFFE}" + String(Unicode.Scalar(0xFDD0 as UInt32)!), "\u{10FFFF}",
        "a\u{0301}\u{0301}\u{0301}", "\t\r\n\u{1B}[31m\u{7F}\u{1}", "<node name=\"&amp;\"/>'", "%s%n%x%@",
        "../../etc/passwd",
        "'\\''", "DOMAIN/cou1", "SDLAB-CANARY/cou1/mail/plain/1", " cou1", "cou1 ", "COU1",
        String(repeating: "x", count: 65536), String(repeating: "n", count: 255), String(repeating: "n", count: 256),
        String(repeating: "p", count: 1024), String(repeating: "p", count: 1025), String(repeating: "ü", count: 3000),
    ]
    private static let scalarRanges: [ClosedRange<UInt32>] = [
        0x01...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF,
        0x10000...0x10FFFF,
    ]

    private mutating func string() -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4: return pick(Self.knownStrings)
        case 4..<7: return pick(Self.oddStrings)
        default:
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let range = pick(Self.scalarRanges)
                text.append(Unicode.Scalar(UInt32.random(in: range, using: &random))!)
            }
            return String(text)
        }
    }

    private mutating func objectPath() -> ObjectPath {
        if chance(0.5) { return pick(["/", "/dev/sdlab/Hub", "/dev/sdlab/App", "/dev/sdlab/Notify", "/a_b/C9/_"]) }
        let letters = Array("abcXYZ019_")
        let elements = (0..<Int.random(in: 1...(chance(0.1) ? 400 : 6), using: &random)).map { _ in
            String((0..<Int.random(in: 1...8, using: &random)).map { _ in pick(letters) })
        }
        return (try? ObjectPath("/" + elements.joined(separator: "/"))) ?? .root
    }

    private mutating func signature() -> Signature {
        if chance(0.2) { return .empty }
        let text = (0..<Int.random(in: 1...4, using: &random)).map { _ in typeText(depth: 1) }.joined()
        return (try? Signature(text)) ?? "s"
    }

    // MARK: Choice

    private mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    private mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &random)! }
}
