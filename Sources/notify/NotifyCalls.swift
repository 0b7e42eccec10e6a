import DarwinNotify
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// The C calls over one client (nil outside a device): C's pointers and statuses in, the
/// engine's calls out. The public functions use the process's client.
struct NotifyCalls {
    let client: NotifyClient?

    static var process: NotifyCalls { NotifyCalls(client: NotifyClient.shared) }

    func post(_ name: UnsafePointer<CChar>?) -> UInt32 {
        status { () throws(NotifyFailure) in
            let name = try Self.name(name)
            try device().post(name)
        }
    }

    func registerCheck(_ name: UnsafePointer<CChar>?, _ outToken: UnsafeMutablePointer<Int32>?) -> UInt32 {
        register(name, outToken) { client, name throws(NotifyFailure) in try client.registerCheck(name) }
    }

    func registerDispatch(
        _ name: UnsafePointer<CChar>?, _ outToken: UnsafeMutablePointer<Int32>?, _ queue: DispatchQueue?,
        _ handler: @escaping (Int32) -> Void
    ) -> UInt32 {
        register(name, outToken) { client, name throws(NotifyFailure) in
            guard let queue else { throw .failed }
            return try client.registerDispatch(name, queue: queue, handler: handler)
        }
    }

    func registerSignal(_ name: UnsafePointer<CChar>?, _ signal: Int32, _ outToken: UnsafeMutablePointer<Int32>?)
        -> UInt32
    {
        register(name, outToken) { client, name throws(NotifyFailure) in
            try client.registerSignal(name, signal: signal)
        }
    }

    func registerFileDescriptor(
        _ name: UnsafePointer<CChar>?, _ descriptor: UnsafeMutablePointer<Int32>?, _ flags: Int32,
        _ outToken: UnsafeMutablePointer<Int32>?
    ) -> UInt32 {
        register(name, outToken) { client, name throws(NotifyFailure) in
            guard let descriptor else { throw .invalidFile }
            let reused = flags & NOTIFY_REUSE != 0 ? descriptor.pointee : nil
            let (token, readEnd) = try client.registerFileDescriptor(name, reusing: reused)
            descriptor.pointee = readEnd
            return token
        }
    }

    func check(_ token: Int32, _ check: UnsafeMutablePointer<Int32>?) -> UInt32 {
        status { () throws(NotifyFailure) in
            guard let check else { throw .nullInput }
            check.pointee = try tokenOwner().check(token) ? 1 : 0
        }
    }

    func getState(_ token: Int32, _ state: UnsafeMutablePointer<UInt64>?) -> UInt32 {
        status { () throws(NotifyFailure) in
            guard let state else { throw .nullInput }
            state.pointee = try device().state(of: token)
        }
    }

    func setState(_ token: Int32, _ state: UInt64) -> UInt32 {
        status { () throws(NotifyFailure) in try device().setState(state, of: token) }
    }

    func suspend(_ token: Int32) -> UInt32 {
        status { () throws(NotifyFailure) in try tokenOwner().suspend(token) }
    }

    func resume(_ token: Int32) -> UInt32 {
        status { () throws(NotifyFailure) in try tokenOwner().resume(token) }
    }

    func cancel(_ token: Int32) -> UInt32 {
        status { () throws(NotifyFailure) in try tokenOwner().cancel(token) }
    }

    func isValidToken(_ token: Int32) -> Bool {
        client?.isValid(token) ?? false
    }

    // MARK: -

    /// A registration: the out-pointer gets the token, or -1 when the call fails.
    private func register(
        _ name: UnsafePointer<CChar>?, _ outToken: UnsafeMutablePointer<Int32>?,
        _ body: (NotifyClient, String) throws(NotifyFailure) -> Int32
    ) -> UInt32 {
        status { () throws(NotifyFailure) in
            guard let outToken else { throw .nullInput }
            outToken.pointee = -1
            let name = try Self.name(name)
            outToken.pointee = try body(try device(), name)
        }
    }

    /// The client, for calls that need the device.
    private func device() throws(NotifyFailure) -> NotifyClient {
        guard let client else { throw .serverNotFound }
        return client
    }

    /// The client, for calls about a token: outside a device no token exists.
    private func tokenOwner() throws(NotifyFailure) -> NotifyClient {
        guard let client else { throw .invalidToken }
        return client
    }

    /// A C name as the engine takes it; read no further than one byte past the longest name.
    static func name(_ pointer: UnsafePointer<CChar>?) throws(NotifyFailure) -> String {
        guard let pointer else { throw .nullInput }
        let length = strnlen(pointer, NotifyName.maxLength + 1)
        guard length > 0, length <= NotifyName.maxLength, let name = String(validatingCString: pointer) else {
            throw .invalidName
        }
        return name
    }

    private func status(_ body: () throws(NotifyFailure) -> Void) -> UInt32 {
        do {
            try body()
            return UInt32(NOTIFY_STATUS_OK)
        } catch {
            return error.rawValue
        }
    }
}
