import DeviceContract
import Foundation
import Scenario
import SharedDevice

/// Each step as the calls and signals that carry it out on the device, to be awaited.
extension StepDriver: StepCarrier {
    public typealias Outcome = () async throws -> Void

    public func enroll(_ user: String, password: String?) -> Outcome {
        { try await self.hub(HubMethod.enroll, [.string(user), .string(password ?? self.password(of: user))]) }
    }

    public func checkOut(_ user: String, password: String?, from origin: StepKind.Origin) -> Outcome {
        {
            try await self.open(origin)
            try await self.hub(HubMethod.checkOut, [.string(user), .string(password ?? self.password(of: user))])
        }
    }

    public func checkIn(from origin: StepKind.Origin) -> Outcome {
        {
            try await self.open(origin)
            try await self.hub(HubMethod.checkIn)
        }
    }

    public func signIn(in app: String, as user: String, password: String?) -> Outcome {
        { try await self.usable(app).signIn(user, password: password ?? self.password(of: user)) }
    }

    public func signOut(in app: String) -> Outcome { { try await self.usable(app).signOut() } }

    public func removeAccount() -> Outcome { { try await self.hub(BrokerMethod.removeAccount) } }

    public func lifecycle(_ action: AppLifecycle.Action, of apps: [String]) -> Outcome {
        {
            for (index, app) in apps.enumerated() {
                try await self.lifecycle(action, app)
                if apps.count >= 10 { self.onFleetProgress(index + 1, apps.count) }
            }
        }
    }

    public func write(_ kind: RecordKind, count: Int, in app: String) -> Outcome {
        { try await self.usable(app).write(kind, count: count) }
    }

    public func network(online: Bool) -> Outcome { { try await self.hub(HubMethod.setOnline, [.bool(online)]) } }

    public func lock() -> Outcome { { try await self.hub(HubMethod.lock) } }

    public func unlock(in app: String?, as user: String, password: String?) -> Outcome {
        {
            let secret = password ?? self.password(of: user)
            if let app {
                try await self.usable(app).unlock(user, password: secret)
            } else {
                try await self.hub(HubMethod.unlock, [.string(user), .string(secret)])
            }
        }
    }

    public func wipe() -> Outcome { { try await self.hub(HubMethod.enterpriseWipe) } }

    public func post(_ name: String) -> Outcome { { try self.connection.post(name) } }

    public func hubProcess(_ action: StepKind.HubAction) -> Outcome {
        {
            switch action {
            case .crash:
                self.device.hub.signal(SIGKILL)
                _ = self.device.hub.waitForExit(timeout: .seconds(5))
            case .restart:
                try await self.device.restartHub()
            }
        }
    }

    public func wait(_ duration: Duration) -> Outcome { { try await self.passTime(duration) } }

    public func settle(within limit: Duration?) -> Outcome {
        { try await self.settleApps(within: limit ?? StepDriver.defaultSettleBound) }
    }
}
