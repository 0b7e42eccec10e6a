import Testing
import notify

/// A notify(3) user as iOS code writes one, importing notify alone: it sees Dispatch through
/// it, as `<notify.h>` includes `<dispatch/dispatch.h>`, and keeps `NOTIFY_TOKEN_INVALID` until
/// it has registered.
private final class RefreshListener {
    private(set) var token = NOTIFY_TOKEN_INVALID
    private let queue = DispatchQueue(label: "com.contoso.refresh")

    /// Starts listening; the status of the registration.
    func start(_ name: String, onPost: @escaping () -> Void) -> UInt32 {
        notify_register_dispatch(name, &token, queue) { _ in onPost() }
    }

    var isListening: Bool { token != NOTIFY_TOKEN_INVALID && notify_is_valid_token(token) }

    func stop() {
        guard token != NOTIFY_TOKEN_INVALID else { return }
        notify_cancel(token)
        token = NOTIFY_TOKEN_INVALID
    }
}

/// Outside a device, as this test process is: registrations fail with the status notify(3)
/// gives when there is no notification server, and the token stays invalid.
@Suite("notify imported alone")
struct NotifyAloneTests {
    @Test func theInvalidTokenIsMinusOne() {
        #expect(NOTIFY_TOKEN_INVALID == -1)
        #expect(!notify_is_valid_token(NOTIFY_TOKEN_INVALID))
    }

    @Test func aRegistrationOutsideADeviceLeavesTheTokenInvalid() {
        let listener = RefreshListener()
        let status = listener.start("com.contoso.refresh") {}
        #expect(status == UInt32(NOTIFY_STATUS_SERVER_NOT_FOUND))
        #expect(listener.token == NOTIFY_TOKEN_INVALID)
        #expect(!listener.isListening)
        listener.stop()
        #expect(notify_cancel(NOTIFY_TOKEN_INVALID) == NOTIFY_STATUS_INVALID_TOKEN)
    }

    @Test func dispatchComesWithNotify() async {
        let queue = DispatchQueue(label: "com.contoso.notify-alone")
        let value = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: DispatchQoS.QoSClass.default) }
        }
        #expect(value == .default)
    }
}
