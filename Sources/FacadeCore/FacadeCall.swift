import DBusKit
import DeviceContract
import Dispatch
import Foundation
import SharedDevice
import Synchronization

/// Why a facade's call to the device failed, in the device's terms. It is read once, here,
/// from whatever the device or an SDK client threw, so that each facade turns it into its
/// SDK's error through one table (`Facade`) and never looks at the bus.
public struct DeviceFailure: Error, Sendable {
    public enum Reason: Sendable, Equatable {
        /// Nobody answered, or the bus answered with an error that is not the device's
        /// (`message`: what it said; nil when the SDK only knows that the hub was not reached).
        case unreachable(message: String?)
        /// The device refused, with its error and message (may be empty).
        case refused(DeviceError, message: String)
        /// The answer was not of the contract: an error the device does not have (the SDK's
        /// `InvalidAnswer`, a bus's own), by its name, and message (may be empty).
        case invalid(name: String, message: String)
        /// The broker answered with more than one account.
        case ambiguousAccount
        /// Anything else, described.
        case unexpected(String)
    }

    public let reason: Reason
    /// The error as it was thrown, for an SDK that hands on errors it does not know unchanged.
    public let cause: any Error

    public init(_ error: any Error) {
        cause = (error as? DeviceFailure)?.cause ?? error
        reason =
            switch cause {
            case let error as BrokerError:
                switch error {
                case .unreachable: .unreachable(message: nil)
                case .ambiguousAccount: .ambiguousAccount
                case .refused(let refusal): .refused(refusal, message: "")
                case .invalidAnswer(let name): .invalid(name: name, message: "")
                }
            case let error as DBusError where error.isDevice(WorkspaceOneSessionRule.hubUnreachableError):
                .unreachable(message: nil)
            case let error as DBusError where error.name.hasPrefix(DeviceBus.errorPrefix):
                DeviceError(error).map { .refused($0, message: error.message) }
                    ?? .invalid(name: String(error.shortName), message: error.message)
            case let error as DBusError: .unreachable(message: error.message)
            default: .unexpected("\(cause)")
            }
    }

    /// The device's error, when it refused.
    public var deviceError: DeviceError? {
        if case .refused(let error, _) = reason { error } else { nil }
    }
}

/// A facade (MSAL, AWSDK): how its SDK spells the device's failures, and where its calls start.
public struct Facade: Sendable {
    private let errors: @Sendable (DeviceFailure) -> NSError

    /// `errors`: the SDK's error for each failure, the facade's one table.
    public init(errors: @escaping @Sendable (DeviceFailure) -> NSError) { self.errors = errors }

    /// A call whose app code (completion, delegate) runs on `queue`; it reaches the device this
    /// process's host installed, if any.
    public func call(completingOn queue: DispatchQueue) -> FacadeCall {
        FacadeCall(link: DeviceLink.current, queue: queue, errors: errors)
    }

    /// A call on `link`'s device (nil: outside one) rather than the process's: for an SDK object
    /// bound to the device it was made in, as MSAL Android's application is to its app.
    public func call(completingOn queue: DispatchQueue, in link: DeviceLink?) -> FacadeCall {
        FacadeCall(link: link, queue: queue, errors: errors)
    }

    /// The SDK's error for what the device or an SDK client threw.
    public func error(_ error: any Error) -> NSError { Self.error(DeviceFailure(error), as: errors) }

    /// The SDK's error for `failure`, with the failure under `NSUnderlyingErrorKey` (as MSAL
    /// nests the errors beneath its own), so that the host can name the device's refusal.
    static func error(_ failure: DeviceFailure, as errors: (DeviceFailure) -> NSError) -> NSError {
        let error = errors(failure)
        guard error.userInfo[NSUnderlyingErrorKey] == nil else { return error }
        return NSError(
            domain: error.domain, code: error.code,
            userInfo: error.userInfo.merging([NSUnderlyingErrorKey: failure]) { $1 })
    }
}

/// One call of a facade into the device: the device found (or the SDK's answer without one),
/// the work run on the connection's executor, and the app's code run on the queue the app
/// asked for, after which the host hears it returned.
public struct FacadeCall: Sendable {
    /// The device; nil outside one.
    public let link: DeviceLink?
    public let queue: DispatchQueue
    private let errors: @Sendable (DeviceFailure) -> NSError
    /// Set when the call is made for a caller that awaits it (`AwaitedReturn`).
    private let awaited: AwaitedReturn?

    init(link: DeviceLink?, queue: DispatchQueue, errors: @escaping @Sendable (DeviceFailure) -> NSError) {
        self.link = link
        self.queue = queue
        self.errors = errors
        awaited = AwaitedReturn.current
    }

    /// The device; without one, `answer` (what the SDK answers when its broker, server or daemon
    /// is missing) runs on the queue, and the host hears nothing, since there is none.
    public func device(orElse answer: @escaping () -> Void) -> DeviceLink? {
        if link == nil { complete(answer) }
        return link
    }

    /// Runs `work` on the bus connection's executor, so each reply resumes it there with no hop
    /// to the cooperative pool. Outside a device there is nothing to run.
    public func run(_ work: @escaping @Sendable () async -> Void) {
        guard let link else { return }
        Task(executorPreference: link.connection) { await work() }
    }

    /// Runs the app's code on the queue, never on the connection's thread; then tells the host
    /// it returned (`afterCheck`: the code a check's answer led to), or, for a caller awaiting the
    /// call, once the caller's code ran (`AwaitedReturn`).
    public func complete(afterCheck: Bool = false, _ body: @escaping () -> Void) {
        let work = AppValue(body)
        queue.async { [link, awaited] in
            work.value()
            let returned: @Sendable (_ mayStillRun: Bool) -> Void = { mayStillRun in
                link?.listener.appCodeReturned(afterCheck: afterCheck, mayStillRun: mayStillRun)
            }
            if let awaited { awaited.hold(returned) } else { returned(false) }
        }
    }

    /// The SDK's error for what the device or an SDK client threw.
    public func error(_ error: any Error) -> NSError { Facade.error(DeviceFailure(error), as: errors) }

    /// The blocking bridge for the SDKs' synchronous calls: runs `work` and waits on this
    /// thread for at most the hub's timeout (nil: no answer in time, or no device).
    /// On the thread that serves the bus (an app's main thread), the answer can only arrive by
    /// serving it, so the bridge serves it while it waits.
    public func wait<Value: Sendable>(_ work: @escaping @Sendable () async -> Value) -> Value? {
        guard let link else { return nil }
        let connection = link.connection
        guard connection.isServedByCurrentThread else { return waitFor(timeout: link.hubTimeout, work) }
        let answer = Mutex<Value?>(nil)
        let task = Task(executorPreference: connection) {
            let value = await work()
            answer.withLock { $0 = value }
        }
        guard connection.serve(until: { answer.withLock { $0 != nil } }, timeout: link.hubTimeout) else {
            task.cancel()
            return nil
        }
        return answer.withLock { $0 }
    }
}

/// When the app's code a completion led to has returned, for a completion that only resumes a
/// caller awaiting it (MSAL's `try await application.currentAccount(with:)`): that code is the
/// caller's, after its `await`. The awaiting form makes one, and the call made under it keeps
/// the host's notice until the form releases it in the caller's isolation: the notice then
/// waits for the caller's actor's next turn, after the caller's code that follows the `await`
/// (a cleanup written there is judged once it ran, not while it runs). A nonisolated caller
/// runs beside everything: its release gives the notice at once, saying the code may still run,
/// so that no scan beside it calls its cleanup failed.
public final class AwaitedReturn: @unchecked Sendable {
    @TaskLocal public static var current: AwaitedReturn?

    private let lock = NSLock()
    private var notice: (@Sendable (_ mayStillRun: Bool) -> Void)?
    /// Set once released: whether the caller's code may still be running.
    private var released: Bool?

    public init() {}

    /// Keeps the host's notice until the release (gives it now if that came first).
    func hold(_ notice: @escaping @Sendable (_ mayStillRun: Bool) -> Void) {
        let now: Bool? = lock.withLock {
            if released == nil { self.notice = notice }
            return released
        }
        if let now { notice(now) }
    }

    /// The caller resumed: gives the host its notice in the caller's actor's next turn, or at
    /// once for a caller on no actor.
    public func release(isolation: isolated (any Actor)? = #isolation) {
        guard isolation != nil else { return give(mayStillRun: true) }
        Task {
            _ = isolation
            self.give(mayStillRun: false)
        }
    }

    private func give(mayStillRun: Bool) {
        let notice = lock.withLock {
            released = mayStillRun
            defer { self.notice = nil }
            return self.notice
        }
        notice?(mayStillRun)
    }
}
