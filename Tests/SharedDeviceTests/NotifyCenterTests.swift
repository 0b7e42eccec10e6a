import Foundation
import SharedDevice
import Testing

/// The notification center's rules (Docs/behaviour.md §3): the one name rule, `self.` names,
/// registrations per holder, and a state that lives only while its name is held.
@Suite struct NotifyCenterTests {
    /// One thing a client (or the bus) does to the center.
    enum Step: CustomStringConvertible {
        case register(String, by: String)
        case cancel(String, by: String)
        /// The holder left the bus.
        case release(String)
        case set(String, UInt64)

        var description: String {
            switch self {
            case .register(let name, let holder): "\(holder) registers \(name)"
            case .cancel(let name, let holder): "\(holder) cancels \(name)"
            case .release(let holder): "\(holder) leaves"
            case .set(let name, let value): "set \(name) \(value)"
            }
        }
    }

    static func run(_ steps: [Step]) -> NotifyCenter {
        var center = NotifyCenter()
        for step in steps {
            switch step {
            case .register(let name, let holder): center.register(name, by: holder)
            case .cancel(let name, let holder): center.cancel(name, by: holder)
            case .release(let holder): center.release(holder)
            case .set(let name, let value): center.setState(of: name, to: value)
            }
        }
        return center
    }

    static let changed = NotifyCenter.accountChanged

    @Test(
        arguments: [
            // (steps, name read, state, held)
            ([], "foo.bar", 0, false),
            ([.set("foo.bar", 123)], "foo.bar", 0, false),  // notifyutil -s foo.bar 123 -g foo.bar
            ([.register("foo.bar", by: ":1.7"), .set("foo.bar", 123)], "foo.bar", 123, true),
            (
                [.register("foo.bar", by: ":1.7"), .set("foo.bar", 123), .cancel("foo.bar", by: ":1.7")], "foo.bar", 0,
                false
            ),
            ([.register("foo.bar", by: ":1.7"), .set("foo.bar", 123), .release(":1.7")], "foo.bar", 0, false),
            // Registrations are counted per holder.
            (
                [.register("n", by: ":1.7"), .register("n", by: ":1.7"), .set("n", 5), .cancel("n", by: ":1.7")],
                "n", 5, true
            ),
            (
                [.register("n", by: ":1.7"), .register("n", by: ":1.7"), .set("n", 5), .release(":1.7")],
                "n", 0, false
            ),
            // Another holder keeps the name; the last one to go takes the state with it.
            (
                [.register("n", by: ":1.7"), .register("n", by: ":1.8"), .set("n", 5), .release(":1.7")],
                "n", 5, true
            ),
            (
                [
                    .register("n", by: ":1.7"), .register("n", by: ":1.8"), .set("n", 5), .release(":1.7"),
                    .cancel("n", by: ":1.8"),
                ], "n", 0, false
            ),
            // A cancel of a registration the caller does not hold changes nothing.
            ([.register("n", by: ":1.7"), .set("n", 5), .cancel("n", by: ":1.9"), .release(":1.9")], "n", 5, true),
            // A name held again starts from 0.
            ([.register("n", by: ":1.7"), .set("n", 5), .release(":1.7"), .register("n", by: ":1.8")], "n", 0, true),
            // Setting 0 keeps the name held; it reads 0.
            ([.register("n", by: ":1.7"), .set("n", 5), .set("n", 0)], "n", 0, true),
            // The center holds the account-change name itself: its state is kept whoever leaves.
            ([.set(changed, 3)], changed, 3, true),
            ([.register(changed, by: ":1.7"), .set(changed, 4), .release(":1.7")], changed, 4, true),
            ([.register(changed, by: ":1.7"), .set(changed, 4), .cancel(changed, by: ":1.7")], changed, 4, true),
            // `self.` names never reach the center: neither held nor kept.
            ([.register("self.x", by: ":1.7"), .set("self.x", 9)], "self.x", 0, false),
            // Nor do names outside the rule.
            ([.register(String(repeating: "n", count: 512), by: ":1.7")], String(repeating: "n", count: 512), 0, false),
            (
                [
                    .register(String(repeating: "n", count: 511), by: ":1.7"),
                    .set(String(repeating: "n", count: 511), 6),
                ],
                String(repeating: "n", count: 511), 6, true
            ),
        ] as [([Step], String, UInt64, Bool)])
    func aStateLivesWhileItsNameIsHeld(steps: [Step], name: String, state: UInt64, held: Bool) {
        let center = Self.run(steps)
        #expect(center.state(of: name) == state, "\(steps)")
        #expect(center.isHeld(name) == held, "\(steps)")
    }

    @Test func registrationsAreCountedPerHolderAndReleasedWithIt() {
        var center = Self.run([
            .register("a", by: ":1.7"), .register("a", by: ":1.7"), .register("a", by: ":1.8"),
            .register("b", by: ":1.7"),
        ])
        #expect(center.registrations(of: "a") == 3 && center.registrations(of: "b") == 1)
        center.release(":1.7")
        #expect(center.registrations(of: "a") == 1 && center.registrations(of: "b") == 0)
        #expect(!center.isHeld("b") && center.count == 1)
    }

    /// Any client may register and set: the names kept are bounded (8,000 names once slowed
    /// every save of the hub's state fourfold).
    @Test func namesAreBoundedTheLeastRecentlyUsedGoFirstWithTheirRegistrationsAndTheAccountChangeNameStays() {
        var center = NotifyCenter()
        center.setState(of: Self.changed, to: 3)
        let total = NotifyCenter.capacity * 4
        for n in 0..<total {
            center.register("flood.\(n)", by: ":1.9")
            center.setState(of: "flood.\(n)", to: 1)
        }
        let kept = "flood.\(total - 200)"
        center.setState(of: kept, to: 2)  // set again: recent now
        for n in 0..<50 {
            center.register("late.\(n)", by: ":1.10")
            center.setState(of: "late.\(n)", to: 1)
        }
        #expect(center.count == NotifyCenter.capacity)
        #expect(center.state(of: Self.changed) == 3)
        #expect(center.state(of: "flood.0") == 0 && !center.isHeld("flood.0"), "forgotten with its registration")
        #expect(center.state(of: kept) == 2)
        #expect(center.state(of: "late.49") == 1)
        center.cancel("late.49", by: ":1.10")
        #expect(center.count == NotifyCenter.capacity - 1, "a name whose last registration went is forgotten")
        center.release(":1.9")
        center.release(":1.10")
        #expect(center.count == 1 && center.state(of: Self.changed) == 3)
    }

    /// What outlives the hub process: the states of the names the center holds itself.
    @Test func onlyTheCentersOwnNamesAreSaved() throws {
        let center = Self.run([.set(Self.changed, 3), .register("n", by: ":1.7"), .set("n", 5)])
        let decoded = try JSONDecoder().decode(NotifyCenter.self, from: try JSONEncoder().encode(center))
        #expect(decoded == center.saved)
        #expect(decoded.state(of: Self.changed) == 3 && decoded.state(of: "n") == 0 && !decoded.isHeld("n"))
        // A file written before registrations existed, with states of other names.
        let older = Data(#"{"states": {"SHARED_MODE_CURRENT_ACCOUNT_CHANGED": 4, "custom.name": 42}}"#.utf8)
        let loaded = try JSONDecoder().decode(NotifyCenter.self, from: older)
        #expect(loaded.state(of: Self.changed) == 4 && loaded.state(of: "custom.name") == 0 && loaded.count == 1)
    }

    @Test func registrationsChangeNothingTheHubSaves() {
        var hub = HubModel()
        let before = hub.saved
        hub.registerNotify("n", by: ":1.7")
        hub.setNotifyState(of: "n", to: 5)
        hub.cancelNotify("n", by: ":1.7")
        hub.registerNotify("m", by: ":1.7")
        hub.releaseNotify(heldBy: ":1.7")
        #expect(hub.saved == before)
        hub.setNotifyState(of: Self.changed, to: 9)
        #expect(hub.saved != before)
    }

    @Test(arguments: [
        ("", false), (Self.changed, true), ("a\0b", false), ("com.apple.any thing/ok", true),
        (String(repeating: "x", count: 255), true), (String(repeating: "x", count: 256), true),
        (String(repeating: "x", count: 511), true), (String(repeating: "x", count: 512), false),
        (String(repeating: "'", count: 511), true),
        // Bytes are counted, not characters: "é" is two.
        (String(repeating: "é", count: 255) + "x", true), (String(repeating: "é", count: 256), false),
    ])
    func oneNameRule(name: String, valid: Bool) {
        #expect(NotifyCenter.isValidName(name) == valid)
        #expect((NotifyCenter.refusal(of: name) == NotifyCenter.nameRule) == !valid)
    }

    @Test(arguments: [
        ("self.x", true), ("self.", true), ("self", false), ("selfish.x", false), ("com.self.x", false),
        ("Self.x", false),
    ])
    func selfNamesArePrivateToTheirProcess(name: String, local: Bool) {
        #expect(NotifyCenter.isProcessLocal(name) == local)
        #expect((NotifyCenter.refusal(of: name) != nil) == local)
    }

    @Test func theRuleSaysItsBounds() {
        #expect(NotifyCenter.maxNameLength == 511)
        #expect(NotifyCenter.nameRule == "a notification name is 1 to 511 bytes without NUL")
    }
}
