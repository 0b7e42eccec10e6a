import DarwinNotify
import DeviceProcesses
import DeviceTestKit
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import notify

#if canImport(Glibc)
    import Glibc
#endif

/// The C calls with C's pointers and statuses: file descriptors, signals, and the status of
/// every refusal.
@Suite("notify(3) C calls")
struct NotifyCallTests {
    @Test(.tags(.device), .devicesWanted)
    func fileDescriptorRegistrationWritesTheTokenInNetworkByteOrder() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let calls = NotifyCalls(client: app.client)
            let (first, second) = (uniqueName("fd"), uniqueName("fd-reused"))
            let registered = await offPool { registerFileDescriptor(calls, first, descriptor: -1, flags: 0) }
            #expect(registered.status == 0)
            try poster.client.post(first)
            #expect(await readBytes(4, from: registered.descriptor) == bigEndianBytes(of: registered.token))

            let reused = await offPool {
                registerFileDescriptor(calls, second, descriptor: registered.descriptor, flags: NOTIFY_REUSE)
            }
            #expect(reused.status == 0 && reused.descriptor == registered.descriptor)
            #expect(reused.token != registered.token)
            try poster.client.post(second)
            #expect(await readBytes(4, from: registered.descriptor) == bigEndianBytes(of: reused.token))

            #expect(calls.cancel(registered.token) == 0)
            try poster.client.post(second)
            #expect(await readBytes(4, from: registered.descriptor) == bigEndianBytes(of: reused.token))
            #expect(calls.cancel(reused.token) == 0)
            // Its last token gone, the descriptor is no longer one of this API's.
            let afterwards = await offPool {
                registerFileDescriptor(calls, second, descriptor: registered.descriptor, flags: NOTIFY_REUSE)
            }
            #expect(afterwards.status == UInt32(NOTIFY_STATUS_INVALID_FILE))
        }
    }

    @Test(.tags(.device), .devicesWanted) func reusingADescriptorThisAPIDidNotReturnIsRefused() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let app = try await device.process()
            let calls = NotifyCalls(client: app.client)
            var ends: [Int32] = [-1, -1]
            #expect(pipe(&ends) == 0)
            defer { ends.forEach { close($0) } }
            let foreign = ends[0]
            let result = await offPool {
                registerFileDescriptor(calls, uniqueName("foreign"), descriptor: foreign, flags: NOTIFY_REUSE)
            }
            #expect(result.status == UInt32(NOTIFY_STATUS_INVALID_FILE))
        }
    }

    @Test(.tags(.device), .devicesWanted) func signalRegistrationRaisesTheSignalInTheProcess() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let (app, poster) = (try await device.process(), try await device.process())
            let calls = NotifyCalls(client: app.client)
            let name = uniqueName("signal")
            SignalCatcher.install()
            let status = await offPool {
                var token: Int32 = -1
                return calls.registerSignal(name, SIGUSR2, &token)
            }
            #expect(status == 0)
            try poster.client.post(name)
            #expect(await SignalCatcher.next() == SIGUSR2)
            for number: Int32 in [0, -1, 65] {
                var token: Int32 = 0
                #expect(calls.registerSignal(name, number, &token) == UInt32(NOTIFY_STATUS_INVALID_SIGNAL))
            }
        }
    }

    @Test(.tags(.device), .devicesWanted) func refusalsAnswerWithNotifyHStatuses() async throws {
        try await InProcessDevice.with(prefix: "sdlab-notify") { device in
            let app = try await device.process()
            let calls = NotifyCalls(client: app.client)
            var token: Int32 = 0
            #expect(calls.post(nil) == UInt32(NOTIFY_STATUS_NULL_INPUT))
            #expect(calls.registerCheck(nil, &token) == UInt32(NOTIFY_STATUS_NULL_INPUT))
            #expect(calls.registerCheck("x", nil) == UInt32(NOTIFY_STATUS_NULL_INPUT))
            #expect(calls.post("") == UInt32(NOTIFY_STATUS_INVALID_NAME))
            #expect(calls.post(String(repeating: "a", count: 512)) == UInt32(NOTIFY_STATUS_INVALID_NAME))
            #expect(calls.post(String(repeating: "a", count: 511)) == UInt32(NOTIFY_STATUS_OK))
            let notUTF8: [CChar] = [CChar(bitPattern: 0xFF), CChar(bitPattern: 0xFE), 0]
            #expect(calls.post(notUTF8) == UInt32(NOTIFY_STATUS_INVALID_NAME))
            #expect(calls.registerDispatch("x", &token, nil) { _ in } == UInt32(NOTIFY_STATUS_FAILED))
            #expect(calls.registerFileDescriptor("x", nil, 0, &token) == UInt32(NOTIFY_STATUS_INVALID_FILE))

            // Every name of 1 to 511 bytes registers and has a state: one of quotes too, whose
            // rule (four bytes a quote) would not fit the bus's 1,024.
            let quotes = String(repeating: "'", count: 511)
            #expect(calls.post(quotes) == UInt32(NOTIFY_STATUS_OK))
            let registered = await offPool {
                var token: Int32 = -1
                return (calls.registerCheck(quotes, &token), token)
            }
            #expect(registered.0 == 0)
            let state = await offPool {
                var state: UInt64 = 7
                return (calls.getState(registered.1, &state), state)
            }
            #expect(state.0 == 0 && state.1 == 0)
            #expect(calls.registerCheck(quotes + "'", &token) == UInt32(NOTIFY_STATUS_INVALID_NAME))
            var check: Int32 = -1
            #expect(calls.check(registered.1, nil) == UInt32(NOTIFY_STATUS_NULL_INPUT))
            #expect(calls.check(registered.1, &check) == 0 && check == 1)
            #expect(calls.cancel(registered.1) == 0)
            expectUnknown(registered.1, calls)
            expectUnknown(123_456, calls)
        }
    }

    @Test func withoutADeviceCallsAnswerAsWithoutNotifyd() {
        let calls = NotifyCalls(client: nil)
        var token: Int32 = 0
        var fd: Int32 = -1
        var state: UInt64 = 0
        let serverNotFound = UInt32(NOTIFY_STATUS_SERVER_NOT_FOUND)
        #expect(calls.post("com.contoso.x") == serverNotFound)
        #expect(calls.registerCheck("com.contoso.x", &token) == serverNotFound)
        #expect(calls.registerDispatch("com.contoso.x", &token, .main) { _ in } == serverNotFound)
        #expect(calls.registerSignal("com.contoso.x", SIGUSR2, &token) == serverNotFound)
        #expect(calls.registerFileDescriptor("com.contoso.x", &fd, 0, &token) == serverNotFound)
        #expect(calls.getState(1, &state) == serverNotFound)
        #expect(calls.setState(1, 5) == serverNotFound)
        expectUnknown(1, calls)
        #expect(calls.post(nil) == UInt32(NOTIFY_STATUS_NULL_INPUT))
    }

    /// The spellings of iOS code compile against the public calls (`==` against the `Int32`
    /// macros, or converted with `UInt32(…)`); a NULL name answers the same with or without a device.
    @Test func thePublicCallsKeepIOSSpellings() {
        var token: Int32 = 0
        let status = notify_post(nil)
        #expect(status == NOTIFY_STATUS_NULL_INPUT)
        #expect(status == UInt32(NOTIFY_STATUS_NULL_INPUT))
        #expect(notify_register_dispatch(nil, &token, .main) { _ in } == NOTIFY_STATUS_NULL_INPUT)
        #expect(notify_register_check(nil, &token) != NOTIFY_STATUS_OK)
        #expect(!notify_is_valid_token(-1))
        var check: Int32 = 0
        #expect(notify_check(-1, &check) == NOTIFY_STATUS_INVALID_TOKEN)
    }
}

/// What a registration of a descriptor returned.
private struct Registered: Sendable {
    let status: UInt32
    let descriptor: Int32
    let token: Int32
}

private func registerFileDescriptor(_ calls: NotifyCalls, _ name: String, descriptor: Int32, flags: Int32)
    -> Registered
{
    var descriptor = descriptor
    var token: Int32 = -1
    let status = calls.registerFileDescriptor(name, &descriptor, flags, &token)
    return Registered(status: status, descriptor: descriptor, token: token)
}

private func bigEndianBytes(of token: Int32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: UInt32(bitPattern: token) >> (24 - 8 * UInt32($0))) }
}

/// `count` bytes from `descriptor`, waiting at most 10 seconds for them; nil when they do not come.
private func readBytes(_ count: Int, from descriptor: Int32) async -> [UInt8]? {
    await offPool {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 10_000) == 1 else { return nil }
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, count - filled) }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }
}

/// Every token call answers as for a token that does not exist.
private func expectUnknown(_ token: Int32, _ calls: NotifyCalls, sourceLocation: SourceLocation = #_sourceLocation) {
    let invalid = UInt32(NOTIFY_STATUS_INVALID_TOKEN)
    var check: Int32 = 0
    #expect(calls.check(token, &check) == invalid, sourceLocation: sourceLocation)
    #expect(calls.suspend(token) == invalid, sourceLocation: sourceLocation)
    #expect(calls.resume(token) == invalid, sourceLocation: sourceLocation)
    #expect(calls.cancel(token) == invalid, sourceLocation: sourceLocation)
    #expect(!calls.isValidToken(token), sourceLocation: sourceLocation)
    if calls.client != nil {
        var state: UInt64 = 0
        #expect(calls.getState(token, &state) == invalid, sourceLocation: sourceLocation)
        #expect(calls.setState(token, 1) == invalid, sourceLocation: sourceLocation)
    }
}

/// SIGUSR2 caught for the test: the handler writes the signal's number to a pipe, the one thing
/// a handler may safely do, and `next` reads it.
private enum SignalCatcher {
    private static let pipeEnds: (read: Int32, write: Int32) = {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "cannot create the signal pipe")
        return (ends[0], ends[1])
    }()

    /// Installed once; left in place, so a late signal cannot end the test process.
    private static let installed: Void = {
        _ = pipeEnds
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(SignalCatcher.pipeEnds.write, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGUSR2, &action, nil)
    }()

    static func install() { _ = installed }

    /// The next signal caught, waiting at most 10 seconds.
    static func next() async -> Int32? {
        await readBytes(1, from: pipeEnds.read).map { Int32($0[0]) }
    }
}
